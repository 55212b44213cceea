import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';
import { LINT_RULES } from '../../../proxy-config/core/lint/lint-rules.js';
import { testNginxConfig } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';
import { makeCertificate } from '../helpers/make-certificate.js';

// Issue 38's audit of the rules that can say `error`: each claim that nginx refuses something is
// checked on the real nginx -t (Debian's 1.22), with the variants of the construct nginx accepts;
// each claim about what reaches the client or the upstream is checked live, with the ways a config
// routes around the flagged line. docs/lint.md ("The error rules, audited") lists the rows.

const run = promisify(execFile);

let dir: string;
let cert: { certificate: string; certificateKey: string };
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'proxyops-error-audit-'));
  // Workers run as `nobody` when the master is root: they must be able to read the files served.
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'logs'));
  cert = await makeCertificate(dir, 'default.test', 2);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The ids of the error findings lint gives on a whole config made of `httpBody`, and what nginx -t says of it. */
async function judge(name: string, httpBody: string): Promise<{ lint: string[]; nginx: string }> {
  const confPath = join(dir, `${name}.conf`);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `${t}_temp_path ${join(dir, t)};`)
    .join(' ');
  const body = httpBody.replaceAll('{{cert}}', cert.certificate).replaceAll('{{key}}', cert.certificateKey);
  await writeFile(
    confPath,
    `pid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'logs', 'error.log')};\nevents {}\nhttp {\n${temp}\naccess_log off;\n${body}\n}\n`,
  );
  const nginx = await testNginxConfig({
    confPath,
    prefix: dir,
    startupErrorLog: join(dir, 'logs', 'error.log'),
  }).then(
    () => 'accepted',
    (error: Error) => (/\[emerg\]/.test(error.message) ? 'refused' : error.message),
  );
  const report = await lintNginxConfigFiles(confPath);
  return { lint: report.findings.filter((f) => f.severity === 'error').map((f) => f.ruleId), nginx };
}

const TLS = 'ssl_certificate {{cert}}; ssl_certificate_key {{key}};';

// [variant, http body, the rule that must report nginx's refusal as an error (null: nginx accepts it,
// and lint gives no error)].
const REFUSALS: Array<[string, string, string | null]> = [
  [
    'proxy_pass without a URI part in a named location (try_files to it)',
    'upstream app { server 127.0.0.1:9; } server { listen 127.0.0.1:8081; location / { try_files $uri @app; } location @app { proxy_pass http://app; } }',
    null,
  ],
  [
    'proxy_pass with a URI part in a named location',
    'upstream app { server 127.0.0.1:9; } server { listen 127.0.0.1:8081; location / { try_files $uri @app; } location @app { proxy_pass http://app/x; } }',
    'proxy-pass-uri-not-allowed',
  ],
  [
    'a unix: socket ended by ":" (an empty URI) in a regex location',
    'server { listen 127.0.0.1:8081; location ~ ^/a { proxy_pass http://unix:/tmp/app.sock:; } }',
    null,
  ],
  [
    'a unix: path holding ":" in a regex location (nginx reads the rest as a URI part)',
    'server { listen 127.0.0.1:8081; location ~ ^/a { proxy_pass http://unix:/tmp/a:b.sock; } }',
    'proxy-pass-uri-not-allowed',
  ],
  [
    'unix: upstreams and passes with ":" in their paths, in prefix locations',
    'upstream u { server unix:/tmp/a:b.sock; } server { listen 127.0.0.1:8081; location / { proxy_pass http://u; } location /f/ { proxy_pass http://unix:/tmp/a:b.sock:/; } location /php { fastcgi_pass unix:/run/php/php8.2-fpm.sock; } }',
    null,
  ],
  [
    'proxy_pass with variables inside if and limit_except',
    'server { listen 127.0.0.1:8081; location / { if ($arg_x) { proxy_pass http://127.0.0.1:9$request_uri; } limit_except GET { proxy_pass http://127.0.0.1:9; } } }',
    null,
  ],
  [
    'run-on lines: several directives and blocks on one line',
    'upstream app { server 127.0.0.1:9; } server { listen 127.0.0.1:8081; server_name a; location / { proxy_set_header Host $host; proxy_pass http://app; } location /b { return 204; } }',
    null,
  ],
  [
    'a line without its ";" that nginx reads as more server names',
    'server { listen 127.0.0.1:8081; server_name a.example\n    expires off;\n  }',
    null,
  ],
  [
    'one socket listed twice in a server (8082 and 0.0.0.0:8082)',
    'server { listen 8082; listen 0.0.0.0:8082; }',
    'listen-duplicate',
  ],
  [
    'a specific address and the wildcard of one port in a server',
    'server { listen 127.0.0.1:8082; listen 8082; }',
    null,
  ],
  [
    'socket options on two listens of one socket',
    'server { listen 8083 backlog=10; } server { listen 8083 backlog=20; server_name b; }',
    'listen-duplicate',
  ],
  [
    'socket options on the IPv4 and the IPv6 socket of a port',
    'server { listen 8083 reuseport; listen [::]:8083 reuseport; }',
    null,
  ],
  [
    'default_server twice on one socket (8084 and 0.0.0.0:8084)',
    'server { listen 8084 default_server; } server { listen 0.0.0.0:8084 default_server; server_name b; }',
    'default-server-duplicate',
  ],
  [
    'default_server on the wildcard and on a specific address of one port',
    'server { listen 8084 default_server; } server { listen 127.0.0.1:8084 default_server; server_name b; }',
    null,
  ],
  [
    'a TLS default server without a certificate',
    'server { listen 127.0.0.1:8443 ssl; server_name a; }',
    'ssl-certificate-missing',
  ],
  [
    'a TLS server without a certificate that is not the default of its socket',
    `server { listen 127.0.0.1:8443 ssl default_server; ${TLS} } server { listen 127.0.0.1:8443 ssl; server_name b; }`,
    null,
  ],
  [
    'a TLS default server refusing handshakes instead',
    'server { listen 127.0.0.1:8443 ssl default_server; ssl_reject_handshake on; }',
    null,
  ],
  [
    'ssl_ciphers of weak suites only (OpenSSL 3 knows none of them)',
    `server { listen 127.0.0.1:8443 ssl; ${TLS} ssl_ciphers RC4-SHA:RC4-MD5; }`,
    'tls-ciphers-weak',
  ],
  [
    'weak suites beside strong ones',
    `server { listen 127.0.0.1:8443 ssl; ${TLS} ssl_ciphers HIGH:RC4-SHA:DES-CBC3-SHA:!aNULL; }`,
    null,
  ],
  [
    'fastcgi_pass to a group defined after it',
    'server { listen 127.0.0.1:8081; location / { fastcgi_pass php; } } upstream php { server 127.0.0.1:9; }',
    null,
  ],
  [
    'fastcgi_pass to a name no group defines',
    'upstream php { server 127.0.0.1:9; } server { listen 127.0.0.1:8081; location / { fastcgi_pass phpp; } }',
    'upstream-undefined',
  ],
  [
    'an if in a server, a set in an if',
    'server { listen 127.0.0.1:8081; if ($arg_x) { set $y 1; return 404; } }',
    null,
  ],
  [
    'a directive of events in a location',
    'server { listen 127.0.0.1:8081; location / { worker_connections 10; } }',
    'directive-not-allowed',
  ],
  [
    'a regex PCRE refuses',
    'server { listen 127.0.0.1:8081; location ~ ^/a(?<x>b { return 204; } }',
    'regex-invalid',
  ],
  [
    'a lookbehind, and named captures read by name',
    'server { listen 127.0.0.1:8081; location ~ (?<=/)x$ { return 204; } location ~ ^/u/(?<user>[a-z]+)$ { return 200 $user; } }',
    null,
  ],
  [
    'a misspelt directive',
    'server { listen 127.0.0.1:8081; location / { proxy_passs http://127.0.0.1:9; } }',
    'directive-unknown',
  ],
];

describe('each refusal lint reports as an error is one the real nginx -t makes, and its accepted variants pass', () => {
  it.each(REFUSALS)('%s', async (name, body, rule) => {
    const { lint, nginx } = await judge(name.replace(/\W+/g, '-'), body);
    expect({ nginx, lint }).toEqual(
      rule === null ? { nginx: 'accepted', lint: [] } : { nginx: 'refused', lint: [rule] },
    );
  });
});

describe('events-missing on the real nginx -t', () => {
  it('is an error without events, and quiet when an include holds it', async () => {
    const main = join(dir, 'no-events.conf');
    const test = () =>
      testNginxConfig({ confPath: main, prefix: dir, startupErrorLog: join(dir, 'logs', 'error.log') }).then(
        () => 'accepted',
        () => 'refused',
      );
    const errors = async () =>
      (await lintNginxConfigFiles(main)).findings.filter((f) => f.severity === 'error').map((f) => f.ruleId);
    const head = `pid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'logs', 'error.log')};\n`;
    const http = `http { access_log off; client_body_temp_path ${join(dir, 'client_body')}; proxy_temp_path ${join(dir, 'proxy')}; }\n`;
    await writeFile(main, head + http);
    expect([await test(), await errors()]).toEqual(['refused', ['events-missing']]);
    await writeFile(join(dir, 'events.inc'), 'events { worker_connections 64; }\n');
    await writeFile(main, `${head}include ${join(dir, 'events.inc')};\n${http}`);
    expect([await test(), await errors()]).toEqual(['accepted', []]);
  });
});

/** Path with an encoded CR LF and a header after it: decoded into $uri. */
const SPLIT = '/a%0d%0aInjected:%20yes';

describe('http-splitting, live: a header of $uri replaced at an inner level never goes out', () => {
  let app: UpstreamApp;
  let nginx: LiveNginx | undefined;
  let replaced: number;
  let inEffect: number;
  let redirecting: number;
  const body = () => `
    server {
      listen 127.0.0.1:${replaced};
      proxy_set_header X-Uri $uri;
      add_header X-Uri $uri;
      location / {
        proxy_set_header X-Uri $request_uri;
        add_header X-Uri $request_uri;
        proxy_pass http://127.0.0.1:${app.port};
      }
    }
    server {
      listen 127.0.0.1:${inEffect};
      proxy_set_header X-Uri $uri;
      add_header X-Uri $uri;
      location / { proxy_pass http://127.0.0.1:${app.port}; }
      location ~ ^/cr/(.*)$ { return 302 https://example.com/$1; }
    }
    server {
      listen 127.0.0.1:${redirecting};
      add_header X-Uri $uri always;
      if ($arg_away) { return 301 https://example.com/; }
      location / { add_header X-Uri $request_uri; return 204; }
    }`;

  beforeAll(async () => {
    app = await startUpstreamApp();
    [replaced, inEffect, redirecting] = [await freePort(), await freePort(), await freePort()];
    nginx = await startLiveNginx(body());
  });
  afterAll(async () => {
    await nginx?.stop();
    await app.close();
  });

  const injected = async (port: number) => {
    const response = await fetch(`http://127.0.0.1:${port}${SPLIT}`);
    await response.text();
    return { client: response.headers.get('injected'), upstream: app.seen.at(-1)?.headers.injected };
  };

  it('injects the header where the outer line is in effect, and nowhere once the location sets its own', async () => {
    expect(await injected(inEffect)).toEqual({ client: 'yes', upstream: 'yes' });
    expect(await injected(replaced)).toEqual({ client: null, upstream: undefined });
  });

  it('still injects it where the server answers with its own headers, from an if at server level', async () => {
    const response = await fetch(`http://127.0.0.1:${redirecting}${SPLIT}?away=1`, { redirect: 'manual' });
    expect([response.status, response.headers.get('injected')]).toEqual([301, 'yes']);
  });

  it('writes the lone CR a (.*) capture holds raw into Location: Node refuses the response, other clients split it', async () => {
    // PCRE's `.` stops at a line feed, so only %0d gets through (with %0a the location does not match).
    const raw = await rawResponse(inEffect, '/cr/a%0dInjected:%20yes');
    expect(raw).toContain('Location: https://example.com/a\rInjected: yes\r\n');
    await expect(
      fetch(`http://127.0.0.1:${inEffect}/cr/a%0dInjected:%20yes`, { redirect: 'manual' }),
    ).rejects.toThrow();
    // Python's http.client, for one, reads `Injected: yes` as a header of its own (checked by hand).
  });

  it('is what http-splitting says: errors where the lines are in effect only, a warning for a CR', async () => {
    const path = nginx!.target.confPath;
    const servers = [
      await lineIn(path, `listen 127.0.0.1:${replaced}`),
      await lineIn(path, `listen 127.0.0.1:${inEffect}`),
      await lineIn(path, `listen 127.0.0.1:${redirecting}`),
    ];
    /** Which of the three servers (by its port's name) a line is in. */
    const serverOf = (line: number) =>
      ['replaced', 'inEffect', 'redirecting'][servers.filter((s) => s < line).length - 1];
    const found = (await lintNginxConfigFiles(path)).findings
      .filter((f) => f.ruleId === 'http-splitting')
      .map((f) => [serverOf(f.line), f.severity, f.what]);
    expect(found).toEqual([
      ['inEffect', 'error', 'proxy_set_header X-Uri $uri: $uri can hold a line break'],
      ['inEffect', 'error', 'add_header X-Uri $uri: $uri can hold a line break'],
      [
        'inEffect',
        'warning',
        'return 302 https://example.com/$1: $1 of location ~ ^/cr/(.*)$ can hold a carriage return (CR), not a line feed',
      ],
      ['redirecting', 'error', 'add_header X-Uri $uri always: $uri can hold a line break'],
    ]);
  });
});

/** The raw bytes nginx answers a GET of `path` with, as a string. */
function rawResponse(port: number, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () =>
      socket.end(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

/** The 1-based line of a config file where `text` first appears after line `after`. */
async function lineIn(path: string, text: string, after = 0): Promise<number> {
  const lines = (await readFile(path, 'utf8')).split('\n');
  return lines.findIndex((line, i) => i >= after && line.includes(text)) + 1;
}

describe('cache-control-inverted, live: try_files hands the pages to another location', () => {
  let app: UpstreamApp;
  let nginx: LiveNginx | undefined;
  let root: string;
  const ports: Record<'named' | 'spa' | 'same' | 'outer', number> = { named: 0, spa: 0, same: 0, outer: 0 };
  const body = () => `
    server {
      listen 127.0.0.1:${ports.named};
      root ${root};
      location / { expires 1y; try_files $uri @app; }
      location @app { proxy_pass http://127.0.0.1:${app.port}; }
    }
    server {
      listen 127.0.0.1:${ports.spa};
      root ${root};
      location / { expires 7d; try_files $uri /index.html; }
      location = /index.html { add_header Cache-Control no-cache; }
    }
    server {
      listen 127.0.0.1:${ports.same};
      root ${root};
      location / { expires 7d; try_files $uri /index.html; }
      location /assets/ { add_header Cache-Control no-cache; }
    }
    server {
      listen 127.0.0.1:${ports.outer};
      root ${root};
      expires 1y;
      location / { try_files $uri @app; }
      location @app { proxy_pass http://127.0.0.1:${app.port}; }
    }`;

  beforeAll(async () => {
    app = await startUpstreamApp();
    root = join(dir, 'www');
    await mkdir(root);
    await chmod(root, 0o755);
    await writeFile(join(root, 'index.html'), '<!doctype html><title>app</title>\n');
    await writeFile(join(root, 'app.css'), 'body{}\n');
    await mkdir(join(root, 'assets'));
    await chmod(join(root, 'assets'), 0o755);
    await writeFile(join(root, 'assets', 'app.3f9a1c.js'), 'run()\n');
    for (const key of Object.keys(ports) as Array<keyof typeof ports>) ports[key] = await freePort();
    nginx = await startLiveNginx(body());
  });
  afterAll(async () => {
    await nginx?.stop();
    await app.close();
  });

  const cacheControl = async (port: number, path: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    await response.text();
    return response.headers.get('cache-control');
  };

  it('sends the pages without the catch-all’s caching, and keeps it where the fallback lands back there', async () => {
    expect(await cacheControl(ports.named, '/app.css')).toBe('max-age=31536000');
    expect(await cacheControl(ports.named, '/some/page')).toBeNull();
    expect(await cacheControl(ports.spa, '/some/route')).toBe('no-cache');
    expect(await cacheControl(ports.same, '/some/route')).toBe('max-age=604800');
    // The named location inherits a server-level expires: the pages get it there.
    expect(await cacheControl(ports.outer, '/some/page')).toBe('max-age=31536000');
  });

  it('revalidates hashed assets marked no-cache: a 304, the same file (a cost, not a wrong answer)', async () => {
    const first = await fetch(`http://127.0.0.1:${ports.same}/assets/app.3f9a1c.js`);
    expect([first.headers.get('cache-control'), await first.text()]).toEqual(['no-cache', 'run()\n']);
    const again = await fetch(`http://127.0.0.1:${ports.same}/assets/app.3f9a1c.js`, {
      headers: { 'If-None-Match': first.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
  });

  it('is what cache-control-inverted says: an error on the last server only, a warning for the assets', async () => {
    const report = await lintNginxConfigFiles(nginx!.target.confPath);
    const found = report.findings.filter((f) => f.ruleId === 'cache-control-inverted');
    const path = nginx!.target.confPath;
    const server = await lineIn(path, `listen 127.0.0.1:${ports.same}`);
    expect(found.map((f) => [f.severity, f.line])).toEqual([
      ['error', await lineIn(path, 'expires 7d', server)],
      ['warning', await lineIn(path, 'location /assets/', server)],
      ['error', await lineIn(path, 'expires 1y', await lineIn(path, `listen 127.0.0.1:${ports.outer}`))],
    ]);
  });
});

describe('tls-ciphers-weak follows the exclusions as the OpenSSL nginx links reads them', () => {
  /** The suites `openssl ciphers` enables for a list (Debian 12's libssl3, the one nginx links). */
  const enabled = async (list: string) => (await run('openssl', ['ciphers', list])).stdout.trim().split(':');

  it.each([
    ['HIGH:ADH-AES128-SHA:AECDH-AES128-SHA', ['ADH-AES128-SHA', 'AECDH-AES128-SHA']],
    ['HIGH:ADH-AES128-SHA:AECDH-AES128-SHA:!aNULL', []],
    ['HIGH:NULL-SHA256', ['NULL-SHA256']],
    ['HIGH:NULL-SHA256:!eNULL', []],
    ['HIGH:NULL-SHA256:!NULL', []],
    ['HIGH:ADH-AES128-SHA:!SHA1', []],
    ['HIGH:NULL-SHA256:ADH-AES128-SHA:!ADH', ['NULL-SHA256']],
  ])('%s', async (list, weak) => {
    const written = list.split(':').filter((t) => /NULL|ADH|AECDH/.test(t) && !/^[!-]/.test(t));
    const suites = await enabled(list);
    expect(written.filter((suite) => suites.includes(suite))).toEqual(weak);
    const confPath = join(dir, 'ciphers.conf');
    await writeFile(confPath, `events {}\nhttp { ssl_ciphers ${list}; }\n`);
    const found = (await lintNginxConfigFiles(confPath)).findings.filter(
      (f) => f.ruleId === 'tls-ciphers-weak',
    );
    expect(found.map((f) => f.what)).toEqual(
      weak.length > 0 ? [`ssl_ciphers enables ${weak.join(', ')}`] : [],
    );
  });
});

describe('ssl-certificate-missing, live: a server that is not the default of its socket', () => {
  let nginx: LiveNginx | undefined;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    nginx = await startLiveNginx(`
      server { listen 127.0.0.1:${port} ssl default_server; ssl_certificate ${cert.certificate}; ssl_certificate_key ${cert.certificateKey}; return 204; }
      server { listen 127.0.0.1:${port} ssl; server_name b.test; return 204; }`);
  });
  afterAll(() => nginx?.stop());

  /** The subject CN of the certificate a handshake for `servername` gets. */
  const certificateFor = (servername: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => {
        resolve(String(socket.getPeerCertificate().subject?.CN));
        socket.end();
      });
      socket.once('error', reject);
    });

  it("starts, and sends its names the default server's certificate: a warning, since a certificate covering them would serve", async () => {
    expect(await certificateFor('b.test')).toBe('default.test');
    const found = (await lintNginxConfigFiles(nginx!.target.confPath)).findings.filter(
      (f) => f.ruleId === 'ssl-certificate-missing',
    );
    expect(found.map((f) => f.severity)).toEqual(['warning']);
  });
});

describe('access, path and header rules, live: what reaches the client or the upstream', () => {
  let app: UpstreamApp;
  let nginx: LiveNginx | undefined;
  let port: number;
  let www: string;
  const body = () => `
    server {
      listen 127.0.0.1:${port};
      root ${www};
      deny all;
      location /office/ { allow 10.0.0.1; }
      location /login/ { allow 10.0.0.1; auth_basic "staff"; auth_basic_user_file ${www}/htpasswd; }
      location /closed/ { allow 10.0.0.1; deny all; }
      location /early/ { allow 10.0.0.1; deny all; if ($arg_x) { return 200 "early\\n"; } }
      location /named/ { allow 10.0.0.1; deny all; try_files /dev/null @answer; }
      location @answer { return 200 "named\\n"; }
      location /files { allow all; alias ${www}/files/; }
      location /api { allow all; proxy_pass http://127.0.0.1:${app.port}/; }
      location /api2 { allow all; rewrite ^/api2/?(.*)$ /$1 break; proxy_pass http://127.0.0.1:${app.port}/; }
      location /api3 { allow all; proxy_pass http://127.0.0.1:${app.port}/; }
      location /api3/ { allow all; proxy_pass http://127.0.0.1:${app.port}/; }
      location /cors/ { allow all; if ($http_origin ~ "example\\.com") { add_header Access-Control-Allow-Origin $http_origin; } return 200 "cors\\n"; }
      location /folded/ { allow all; add_header X-Note "a
        b"; add_header X-Note "c"; return 200 "folded\\n"; }
      location ~ ^/capture/.*$ { allow all; return 200 "[$1]\\n"; }
    }`;

  beforeAll(async () => {
    app = await startUpstreamApp();
    port = await freePort();
    www = join(dir, 'access');
    for (const sub of ['office', 'login', 'closed', 'files'])
      await mkdir(join(www, sub), { recursive: true });
    for (const sub of ['office', 'login', 'closed', 'files'])
      await writeFile(join(www, sub, 'i.txt'), 'in\n');
    await writeFile(join(www, 'secret.txt'), 'secret\n');
    await writeFile(join(www, 'htpasswd'), 'staff:$apr1$x$x\n');
    await run('chmod', ['-R', 'a+rX', www]);
    nginx = await startLiveNginx(body());
  });
  afterAll(async () => {
    await nginx?.stop();
    await app.close();
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
    return { status: response.status, body: (await response.text()).trim(), headers: response.headers };
  };

  it('lets everyone through an allow list without deny, the server-level deny notwithstanding; a login still asks', async () => {
    expect((await get('/office/i.txt')).status).toBe(200);
    expect((await get('/login/i.txt')).status).toBe(401);
    expect((await get('/closed/i.txt')).status).toBe(403);
  });

  it('answers a return in an if before the deny, and not one reached through try_files to a named location', async () => {
    expect(await get('/early/?x=1').then((r) => [r.status, r.body])).toEqual([200, 'early']);
    expect((await get('/named/')).status).toBe(403);
  });

  it('reads the parent of the alias through /files../, and passes //users for /api/users, not with rewrite … break or beside /api3/', async () => {
    expect(await get('/files../secret.txt').then((r) => [r.status, r.body])).toEqual([200, 'secret']);
    await get('/api/users');
    expect(app.seen.at(-1)?.url).toBe('//users');
    await get('/api2/users');
    expect(app.seen.at(-1)?.url).toBe('/users');
    // Beside location /api3/, location /api3 gets only /api3 itself: no path is doubled.
    await get('/api3/users');
    expect(app.seen.at(-1)?.url).toBe('/users');
    await get('/api3');
    expect(app.seen.at(-1)?.url).toBe('/');
  });

  it('grants CORS to another site whose name holds the domain; fails the folded header even beside a later one of its name', async () => {
    const cors = await get('/cors/', { Origin: 'https://example.com.evil.test' });
    expect(cors.headers.get('access-control-allow-origin')).toBe('https://example.com.evil.test');
    await expect(fetch(`http://127.0.0.1:${port}/folded/`)).rejects.toThrow();
    expect(await get('/capture/x').then((r) => r.body)).toBe('[]');
  });

  it('is what the rules say, at these severities', async () => {
    const path = nginx!.target.confPath;
    const lines = (await readFile(path, 'utf8')).split('\n');
    const audited = new Set([
      'allow-without-deny',
      'return-bypasses-allow-deny',
      'alias-traversal',
      'proxy-pass-slash-mismatch',
      'origin-regex-unsafe',
      'add-header-multiline',
      'regex-invalid',
    ]);
    const found = (await lintNginxConfigFiles(path)).findings
      .filter((f) => audited.has(f.ruleId))
      .map((f) => [f.ruleId, f.severity, /location (\S+)/.exec(lines[f.line - 1] ?? '')?.[1]]);
    expect(found).toEqual([
      ['allow-without-deny', 'error', '/office/'],
      ['allow-without-deny', 'warning', '/login/'],
      ['return-bypasses-allow-deny', 'error', '/early/'],
      ['alias-traversal', 'error', '/files'],
      ['proxy-pass-slash-mismatch', 'error', '/api'],
      ['origin-regex-unsafe', 'error', '/cors/'],
      ['add-header-multiline', 'error', '/folded/'],
      ['regex-invalid', 'error', '~'],
    ]);
  });
});

describe('tls-protocols-weak: SSLv3 beside TLS 1.2 is a warning', () => {
  it('because the OpenSSL nginx links here has no SSLv3 at all (built without it since 1.1.0)', async () => {
    const help = await run('openssl', ['s_client', '-help']).then(
      ({ stdout, stderr }) => stdout + stderr,
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
    expect(help).toMatch(/-tls1_2\b/);
    expect(help).not.toMatch(/-ssl3\b/);
  });
});

describe('docs/lint.md: the audit table', () => {
  it('has one row per rule that can say error, each naming tests that exist', async () => {
    const page = await readFile(join(import.meta.dirname, '../../../docs/lint.md'), 'utf8');
    const start = page.indexOf('## The error rules, audited');
    const section = page.slice(start, page.indexOf('\n## ', start + 1));
    const rows = [...section.matchAll(/^\| `([a-z0-9-]+)` \| ([^|]+) \| ([^|]+) \|/gm)];
    expect(rows.map((m) => m[1]).sort()).toEqual(
      LINT_RULES.filter((rule) => rule.severity === 'error')
        .map((rule) => rule.id)
        .sort(),
    );
    for (const [, , , shownBy] of rows) {
      // A bare name is in this directory, a path is from the repository's root.
      const files = [...(shownBy ?? '').matchAll(/`([\w/-]+\.test\.ts)`/g)].map((m) => m[1] as string);
      for (const file of files)
        await expect(
          readFile(join(import.meta.dirname, file.includes('/') ? `../../../${file}` : file)),
        ).resolves.toBeTruthy();
    }
  });
});

describe('origin-regex-unsafe, live: what the Origin a browser sends can match', () => {
  let nginx: LiveNginx | undefined;
  let port: number;
  const cors = (path: string, regex: string) =>
    `location ${path} { if ($http_origin ~* "${regex}") { add_header Access-Control-Allow-Origin $http_origin; } return 204; }`;
  beforeAll(async () => {
    port = await freePort();
    nginx = await startLiveNginx(`
      server {
        listen 127.0.0.1:${port};
        ${cors('/scheme/', 'https://(www\\.)?example\\.com$')}
        ${cors('/bare/', 'example\\.com$')}
        ${cors('/anchored/', '^https?://(www\\.)?example\\.com$')}
      }`);
  });
  afterAll(() => nginx?.stop());

  /** The origins of the list that get the CORS header at `path`. */
  const granted = async (path: string) => {
    const origins = ['https://www.example.com', 'https://evilexample.com', 'https://example.com.evil.test'];
    const out: string[] = [];
    for (const origin of origins) {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { Origin: origin } });
      if (response.headers.get('access-control-allow-origin') === origin) out.push(origin);
    }
    return out;
  };

  it('grants no site but the right one where the match can start only at the scheme, another site where not', async () => {
    expect(await granted('/scheme/')).toEqual(['https://www.example.com']);
    expect(await granted('/anchored/')).toEqual(['https://www.example.com']);
    expect(await granted('/bare/')).toEqual(['https://www.example.com', 'https://evilexample.com']);
  });

  it('is what origin-regex-unsafe says: a warning without "^" at the scheme, an error for the bare name, nothing for ~* ^https?://', async () => {
    const path = nginx!.target.confPath;
    const lines = (await readFile(path, 'utf8')).split('\n');
    const found = (await lintNginxConfigFiles(path)).findings
      .filter((f) => f.ruleId === 'origin-regex-unsafe')
      .map((f) => [f.severity, /location (\S+)/.exec(lines[f.line - 1] ?? '')?.[1]]);
    expect(found).toEqual([
      ['warning', '/scheme/'],
      ['error', '/bare/'],
    ]);
  });
});
