import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { splitNginxDump } from '../../../proxy-config/core/nginx-config/split-nginx-dump.js';
import { startLiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';

// The forms the gixy measurement (gixy-fixtures.test.ts) brought in, each checked on its own
// pattern rather than only through gixy's fixture files.
const fired = (text: string, id: string) =>
  lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
    .findings.filter((f) => f.ruleId === id)
    .map((f) => `${f.line}: ${f.what}`);

describe('proxy-pass-uri-not-allowed', () => {
  it('fires on a URI part inside `if`, a regex location, a named location and limit_except', () => {
    const text = `server {
      location /a { if ($arg_x) { proxy_pass http://127.0.0.1:8000/; } }
      location ~* \\.php$ { proxy_pass http://127.0.0.1:8000/index.php; }
      location @fallback { proxy_pass http://unix:/run/app.sock:/x; }
      location /b { limit_except GET { proxy_pass http://127.0.0.1:8000/b/; } }
    }`;
    expect(fired(text, 'proxy-pass-uri-not-allowed')).toEqual([
      expect.stringMatching(/^2: proxy_pass http:\/\/127\.0\.0\.1:8000\/ has the URI part \/ inside `if`/),
      expect.stringMatching(/^3: .* the URI part \/index\.php in the regex location ~\* \\\.php\$/),
      expect.stringMatching(/^4: .* the URI part \/x in the named location @fallback/),
      expect.stringMatching(/^5: .* the URI part \/b\/ inside `limit_except`/),
    ]);
  });

  it('stays quiet without a URI part, with variables (nginx checks nothing then), and in a prefix location', () => {
    const text = `server {
      location /a { if ($arg_x) { proxy_pass http://127.0.0.1:8000; } }
      location ~ ^/v1/(.*)$ { proxy_pass http://127.0.0.1:8000/api/$1; }
      location @fallback { proxy_pass http://unix:/run/app.sock; }
      location /b/ { proxy_pass http://127.0.0.1:8000/c/; }
      location ^~ /d/ { proxy_pass http://127.0.0.1:8000/e/; }
    }`;
    expect(fired(text, 'proxy-pass-uri-not-allowed')).toEqual([]);
  });
});

describe('proxy-pass-normalized after the raw-path rewrite', () => {
  it('fires where the rewrite runs for the proxy_pass and it does not carry the path on', () => {
    const inLocation = `server { location /a/ { rewrite ^ $request_uri; proxy_pass http://127.0.0.1:8000; } }`;
    expect(fired(inLocation, 'proxy-pass-normalized')).toEqual([
      expect.stringMatching(
        /^1: proxy_pass http:\/\/127\.0\.0\.1:8000 after rewrite \^ \$request_uri \(line 1\)/,
      ),
    ]);
    const inServer = `server {\n rewrite ^ $request_uri;\n location /a/ { proxy_pass http://127.0.0.1:8000; } }`;
    expect(fired(inServer, 'proxy-pass-normalized')).toEqual([
      expect.stringMatching(/^3: .* after rewrite \^ \$request_uri \(line 2\)/),
    ]);
  });

  it('stays quiet where the rewrite does not run for it: an outer location’s, or one that redirects', () => {
    // nginx runs the rewrites of the location it chose, a nested one's own; an outer one's do not run.
    const outer = `server { location /a/ { rewrite ^ $request_uri; location /a/b/ { proxy_pass http://127.0.0.1:8000; } } }`;
    expect(fired(outer, 'proxy-pass-normalized')).toEqual([]);
    for (const flag of ['redirect', 'permanent']) {
      const away = `server { location /a/ { rewrite ^ $request_uri ${flag}; proxy_pass http://127.0.0.1:8000; } }`;
      expect(fired(away, 'proxy-pass-normalized')).toEqual([]);
    }
  });
});

describe('http-splitting after the raw-path rewrite', () => {
  it('stays quiet on $uri once `rewrite ^ $request_uri;` made it the encoded path', () => {
    const inLocation = `server { location /a/ {
      rewrite ^ $request_uri;
      proxy_pass http://127.0.0.1:8000$uri;
      proxy_set_header X-Path $uri;
      add_header X-Path $document_uri;
    } }`;
    expect(fired(inLocation, 'http-splitting')).toEqual([]);
    const inServer = `server { rewrite ^ $request_uri; location /a/ { return 302 https://example.com$uri; } }`;
    expect(fired(inServer, 'http-splitting')).toEqual([]);
  });

  it('still fires where $uri is read before the rewrite, or the rewrite does not run for that location', () => {
    const before = `server { location /a/ { return 302 https://example.com$uri; rewrite ^ $request_uri; } }`;
    expect(fired(before, 'http-splitting')).toHaveLength(1);
    const outer = `server { location /a/ { rewrite ^ $request_uri; location /a/b/ { proxy_pass http://127.0.0.1:8000$uri; } } }`;
    expect(fired(outer, 'http-splitting')).toHaveLength(1);
    const redirect = `server { location /a/ { rewrite ^ $request_uri redirect; add_header X-Path $uri; } }`;
    expect(fired(redirect, 'http-splitting')).toHaveLength(1);
    const elsewhere = `server { location /a/ { rewrite ^ $request_uri; } location /b/ { add_header X-Path $uri; } }`;
    expect(fired(elsewhere, 'http-splitting')).toEqual([
      expect.stringMatching(/^1: add_header X-Path \$uri/),
    ]);
  });

  it('what nginx does: after the rewrite, $uri holds %0d%0a as written, and without it a raw CR LF', async () => {
    const [port, backend] = [await freePort(), await freePort()];
    const nginx = await startLiveNginx(`
      server { listen 127.0.0.1:${backend}; location / { return 200 "[$request_uri]"; } }
      server {
        listen 127.0.0.1:${port};
        location /raw/ { rewrite ^ $request_uri break; proxy_pass http://127.0.0.1:${backend}$uri; }
        location /decoded/ { return 302 http://example.com$uri; }
      }`);
    const request = (path: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ port, host: '127.0.0.1' });
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString('latin1')));
        socket.on('error', reject);
        socket.on('close', () => resolve(data));
        socket.write(`GET ${path} HTTP/1.0\r\n\r\n`);
      });
    try {
      const raw = await request('/raw/a%0d%0aX-Injected:%201');
      expect(raw).toMatch(/^HTTP\/1\.1 200/);
      expect(raw).toContain('[/raw/a%0d%0aX-Injected:%201]');
      const decoded = await request('/decoded/a%0d%0aX-Injected:%201');
      expect(decoded.split('\r\n\r\n')[0]).toContain('\r\nX-Injected: 1');
    } finally {
      await nginx.stop();
    }
  });
});

describe('upstream-dns-stale on proxy_pass', () => {
  it('fires on proxy_pass straight to a host name, resolved once at start', () => {
    expect(
      fired('server { location / { proxy_pass http://api.example.com:8080/; } }', 'upstream-dns-stale'),
    ).toEqual([
      '1: proxy_pass http://api.example.com:8080/: api.example.com is resolved once, when nginx starts',
    ]);
  });

  it('fires on a literal host in a proxy_pass with variables when no resolver is set', () => {
    expect(
      fired('server { location / { proxy_pass http://api.example.com$request_uri; } }', 'upstream-dns-stale'),
    ).toEqual([expect.stringContaining('resolves api.example.com per request, but no resolver is set')]);
    expect(
      fired(
        'server { resolver 127.0.0.53; location / { proxy_pass http://api.example.com$request_uri; } }',
        'upstream-dns-stale',
      ),
    ).toEqual([]);
  });

  it('stays quiet on addresses, localhost, unix sockets and upstream groups', () => {
    const text = `upstream app { server 10.0.0.1:80; }
    server {
      location /a { proxy_pass http://127.0.0.1:8000; }
      location /b { proxy_pass http://localhost:8000; }
      location /c { proxy_pass http://unix:/run/app.sock; }
      location /d { proxy_pass http://app; }
      location /e { proxy_pass http://[::1]:8000$request_uri; }
    }`;
    expect(fired(text, 'upstream-dns-stale')).toEqual([]);
  });

  it('in a snippet, takes a single word for an upstream group defined in the files that include it', () => {
    // The upstream app sits in another file: the snippet defines no group of its own.
    const snippet = `server {
      location /a { proxy_pass http://app; }
      location /b { proxy_pass http://app:3000; }
    }`;
    expect(fired(snippet, 'upstream-dns-stale')).toEqual([
      '3: proxy_pass http://app:3000: app is resolved once, when nginx starts',
    ]);
    // A whole nginx.conf defining no group: `app` can only be a host (a container name).
    expect(fired(`events {} http { ${snippet} }`, 'upstream-dns-stale')).toEqual([
      '2: proxy_pass http://app: app is resolved once, when nginx starts',
      '3: proxy_pass http://app:3000: app is resolved once, when nginx starts',
    ]);
  });
});

describe('resolver-external', () => {
  it.each(['dns.internal', 'ns.home.arpa', 'router.local', 'gw.lan', 'dns.corp', 'resolver', 'localhost'])(
    'takes %s for a private name',
    (name) => {
      expect(fired(`resolver ${name} valid=30s;`, 'resolver-external')).toEqual([]);
    },
  );

  it('fires on public names and addresses', () => {
    expect(fired('resolver dns.google 1.1.1.1 10.0.0.2;', 'resolver-external')).toEqual([
      '1: resolver dns.google 1.1.1.1: nameservers outside this host and its private network',
    ]);
  });
});

describe('add-header-content-type', () => {
  it.each(['proxy', 'fastcgi', 'uwsgi', 'scgi', 'grpc'])(
    'is quiet after %s_hide_header Content-Type',
    (module) => {
      expect(
        fired(
          `location / { ${module}_hide_header Content-Type; add_header Content-Type text/plain; }`,
          'add-header-content-type',
        ),
      ).toEqual([]);
    },
  );

  it('fires without the hide_header, or when it hides another header', () => {
    expect(
      fired('location / { add_header Content-Type text/plain; }', 'add-header-content-type'),
    ).toHaveLength(1);
    expect(
      fired(
        'location / { proxy_hide_header X-Powered-By; add_header Content-Type text/plain; }',
        'add-header-content-type',
      ),
    ).toHaveLength(1);
  });
});

describe('splitNginxDump', () => {
  it('splits `nginx -T` output into its files, lines as in each file', () => {
    const dump =
      'nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n' +
      'nginx: configuration file /etc/nginx/nginx.conf test is successful\n' +
      '# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp { include /etc/nginx/conf.d/*.conf; }\n\n' +
      '# configuration file /etc/nginx/conf.d/a.conf:\nserver {\n}\n\n';
    expect([...(splitNginxDump(dump) ?? [])]).toEqual([
      ['/etc/nginx/nginx.conf', 'events {}\nhttp { include /etc/nginx/conf.d/*.conf; }\n'],
      ['/etc/nginx/conf.d/a.conf', 'server {\n}\n'],
    ]);
  });

  it('leaves a config that is no dump alone', () => {
    expect(splitNginxDump('# configuration for example.com\nserver {}\n')).toBeUndefined();
    expect(splitNginxDump('events {}\n# configuration file /etc/nginx/x.conf:\n')).toBeUndefined();
  });
});
