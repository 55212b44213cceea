import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfig, lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';
import type { NginxIdentity } from '../../../proxy-config/core/nginx-config/nginx-identity.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';

// What a newcomer found running lint on public configs after issue 38, each on the pattern as found.
const given = (version: string): NginxIdentity => ({ version, source: 'given with --nginx-version' });
const findings = (text: string, id: string, nginx?: NginxIdentity) =>
  lintNginxConfig(
    { mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') },
    nginx,
  ).findings.filter((f) => f.ruleId === id);

describe('tls-protocols-weak on a TLS socket with no ssl_protocols', () => {
  const site = `events {}
http {
    server {
        listen 443 ssl;
        ssl_certificate a.pem;
        ssl_certificate_key a.key;
        return 204;
    }
}
`;
  it('reports it before 1.27.3, citing the release that turned TLSv1 and TLSv1.1 off by default', () => {
    for (const version of ['1.22.1', '1.23.4', '1.27.2'])
      expect(findings(site, 'tls-protocols-weak', given(version)), version).toMatchObject([
        {
          line: 4,
          severity: 'warning',
          what: expect.stringContaining(
            'nginx 1.27.3 (CHANGES: Change: now TLSv1 and TLSv1.1 protocols are disabled by default.)',
          ),
        },
      ]);
    expect(findings(site, 'tls-protocols-weak')[0]?.what).not.toContain('1.23.4');
  });

  it('is quiet from 1.27.3 on, and still reports TLSv1 written out there', () => {
    expect(findings(site, 'tls-protocols-weak', given('1.27.3'))).toEqual([]);
    expect(findings(site, 'tls-protocols-weak', given('1.29.7'))).toEqual([]);
    const written = site.replace('return 204;', 'ssl_protocols TLSv1 TLSv1.1;\n        return 204;');
    expect(findings(written, 'tls-protocols-weak', given('1.29.7'))).toMatchObject([{ severity: 'error' }]);
  });
});

// nginx 1.22 refuses `resolve` outright (directive-not-in-version); the checks below are those of
// ngx_http_upstream_init_round_robin in nginx's src/http/ngx_http_upstream_round_robin.c (release-1.31.4).
describe('upstream server … resolve on nginx ≥ 1.27.3', () => {
  const site = (upstream: string, http = '') => `events {}
http {
${http}    upstream app {
${upstream}
        server app.example.com:9000 resolve;
    }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://app; }
    }
}
`;
  const refused = (text: string) =>
    findings(text, 'upstream-resolve-refused', given('1.27.3')).map(
      (f) => `${f.line} ${f.severity}: ${f.what}`,
    );

  it('without a zone: an error, as nginx refuses it ("… to be in shared memory")', () => {
    const text = site('        resolver 127.0.0.53;');
    expect(refused(text)).toEqual([
      expect.stringMatching(
        /^5 error: .*resolving names at run time requires upstream "app" … to be in shared memory", nginx's src\/http\/ngx_http_upstream_round_robin\.c:130 /,
      ),
    ]);
    expect(findings(text, 'upstream-dns-stale', given('1.27.3'))).toEqual([]);
  });

  it('with a zone and no resolver in the upstream or at http level: an error ("no resolver defined …"), no longer a warning', () => {
    const text = site('        zone app 64k;');
    expect(refused(text)).toEqual([
      expect.stringMatching(
        /^5 error: .*no resolver defined to resolve names at run time in upstream "app"", nginx's src\/http\/ngx_http_upstream_round_robin\.c:121 /,
      ),
    ]);
    expect(findings(text, 'upstream-dns-stale', given('1.27.3'))).toEqual([]);
    // A resolver in a server does not count: nginx reads the upstream's and the http level's.
    const inServer = text.replace(
      'listen 127.0.0.1:8080;',
      'listen 127.0.0.1:8080;\n        resolver 127.0.0.53;',
    );
    expect(refused(inServer)).toHaveLength(1);
  });

  it('is quiet with a zone and a resolver (in the upstream or at http level), and before 1.27.3', () => {
    expect(refused(site('        zone app 64k;\n        resolver 127.0.0.53;'))).toEqual([]);
    expect(refused(site('        zone app 64k;', '    resolver 127.0.0.53;\n'))).toEqual([]);
    expect(findings(site(''), 'upstream-resolve-refused', given('1.27.2'))).toEqual([]);
    expect(findings(site(''), 'directive-not-in-version', given('1.27.2')).map((f) => f.line)).toEqual([5]);
  });
});

// `ssl on` makes every listen of its server speak TLS: on the real nginx 1.22 a plain HTTP request to
// a listen on any port gets 400 ("ssl on beside a plain listen, on the real nginx 1.22" in
// nginx-version.test.ts, on free high ports). Which listen was meant for plain HTTP is read off the ports.
describe('ssl on beside a listen meant for plain HTTP', () => {
  const ssl = (listens: string) =>
    `events {}\nhttp {\n    server {\n${listens}\n        ssl on;\n        ssl_certificate a.pem;\n        ssl_certificate_key a.key;\n        return 204;\n    }\n}\n`;
  const judged = (listens: string) =>
    findings(ssl(listens), 'ssl-directive-obsolete', given('1.24.0')).map((f) => `${f.severity}: ${f.what}`);

  it('is an error on a plain-HTTP port other than 80 (8080), alone or beside 443', () => {
    expect(judged('        listen 8080;')).toEqual([
      expect.stringMatching(/^error: .*listen 8080 .*plain-HTTP port/),
    ]);
    expect(judged('        listen 127.0.0.1:8080;\n        listen 443;')).toEqual([
      expect.stringMatching(/^error: .*listen 127\.0\.0\.1:8080 /),
    ]);
  });

  it('is an error on any port beside a listen on 443 (that one is TLS, this one plain)', () => {
    expect(judged('        listen 443;\n        listen 8081;')).toEqual([
      expect.stringMatching(/^error: .*listen 8081 .*beside listen 443/),
    ]);
  });

  it('is an error in a server with no listen (nginx listens on *:80)', () => {
    expect(judged('')).toEqual([expect.stringMatching(/^error: .*no listen, so it listens on \*:80/)]);
  });

  it('stays a warning for the legacy HTTPS server: TLS ports only, or one port alone', () => {
    expect(judged('        listen 443;')).toEqual([expect.stringMatching(/^warning: /)]);
    expect(judged('        listen 443;\n        listen [::]:443;\n        listen 8443;')).toEqual([
      expect.stringMatching(/^warning: /),
    ]);
    expect(judged('        listen 9443;')).toEqual([expect.stringMatching(/^warning: /)]);
    expect(judged('        listen 443 ssl;\n        listen 8081 ssl;')).toEqual([
      expect.stringMatching(/^warning: /),
    ]);
  });
});

describe('--nginx-version outside the releases the tables cover', () => {
  const report = (version: string) =>
    lintNginxConfig(
      {
        mainFile: 'x.conf',
        files: ['x.conf'],
        directives: parseNginxConfig('events {}\nhttp {}\n', 'x.conf'),
      },
      given(version),
    ).nginx;

  it('says so, and judges as the nearest covered release (1.18.0, 1.31.4)', () => {
    expect(report('1.14.0')).toMatchObject({
      version: '1.14.0',
      judgedAs: '1.18.0',
      summary:
        "nginx 1.14.0, given with --nginx-version: older than the releases lint's tables cover (1.18.0 to 1.31.4), directives judged as nginx 1.18.0's",
    });
    expect(report('1.32.0')).toMatchObject({
      judgedAs: '1.31.4',
      summary: expect.stringContaining(
        "newer than the releases lint's tables cover (1.18.0 to 1.31.4), directives judged as nginx 1.31.4's",
      ),
    });
  });

  it('says nothing more for a covered release, either end included', () => {
    for (const version of ['1.18.0', '1.24.0', '1.31.4'])
      expect(report(version)).toMatchObject({
        judgedAs: version,
        summary: `nginx ${version}, given with --nginx-version`,
      });
  });
});

// trimstray's nginx-admins-handbook, lib/nginx/master/_server/defaults/servers.conf: each server takes
// its listen lines from `include /etc/nginx/master/_listen/10.240.20.2/https.conf;`, not in the repository.
describe('default-server-missing when the listen lines sit in an include that was not read', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-newcomer-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const servers = (listen: (n: number) => string) =>
    `events {}\nhttp {\n${[1, 2, 3]
      .map(
        (n) => `    server {\n${listen(n)}        server_name s${n}.example;\n        return 444;\n    }\n`,
      )
      .join('')}}\n`;
  const fired = async (text: string) => {
    const file = join(dir, 'nginx.conf');
    await writeFile(file, text);
    return (await lintNginxConfigFiles(file)).findings.filter((f) => f.ruleId === 'default-server-missing');
  };

  it('is quiet when every server includes its listen lines from a missing file', async () => {
    const text = servers(() => '        include /etc/nginx/master/_listen/10.240.20.2/https.conf;\n');
    expect(await fired(text)).toEqual([]);
  });

  it('is quiet when one server of a socket may take its listen from a missing file', async () => {
    const text = servers((n) =>
      n === 3
        ? '        include /etc/nginx/master/_listen/10.240.20.2/https.conf;\n'
        : '        listen 443 ssl;\n',
    );
    expect(await fired(text)).toEqual([]);
  });

  it("leaves a TLS socket's default server to the unread include too (tls-protocols-weak)", async () => {
    const text = servers((n) =>
      n === 3
        ? '        include /etc/nginx/master/_listen/10.240.20.2/https.conf;\n'
        : '        listen 443 ssl;\n        ssl_certificate a.pem;\n        ssl_certificate_key a.key;\n',
    );
    const file = join(dir, 'tls.conf');
    await writeFile(file, text);
    const weak = async (body: string) => {
      await writeFile(file, body);
      return (await lintNginxConfigFiles(file)).findings.filter((f) => f.ruleId === 'tls-protocols-weak');
    };
    expect(await weak(text)).toEqual([]);
    expect(
      await weak(text.replace('include /etc/nginx/master/_listen/10.240.20.2/https.conf;', '')),
    ).toHaveLength(1);
  });

  it('still fires when no include could hold one: servers without listen are on *:80', async () => {
    expect((await fired(servers(() => ''))).map((f) => f.what)).toEqual([
      expect.stringContaining('3 servers listen on *:80'),
    ]);
    // mime.types holds no listen lines: a missing one changes nothing.
    const stock = servers(() => '        include /opt/nginx/conf/mime.types;\n');
    expect(await fired(stock)).toHaveLength(1);
  });
});

describe('map-without-default when the entries cover every value of a set_random source', () => {
  const site = (setRandom: string, entries: string) => `events {}
http {
    map $rand_uri $target {
${entries}
    }
    server {
        listen 127.0.0.1:8080;
        location / {
            ${setRandom}
            return 302 $target;
        }
    }
}
`;
  const three = '        1 /a;\n        2 /b;\n        3 /c;';
  const fired = (text: string) => findings(text, 'map-without-default').map((f) => f.line);

  it('is quiet when the keys are every number of the range (either order)', () => {
    expect(fired(site('set_random $rand_uri 1 3;', three))).toEqual([]);
    expect(fired(site('set_random $rand_uri 3 1;', three))).toEqual([]);
  });

  it('still fires when a value of the range has no key, or something else sets the source too', () => {
    expect(fired(site('set_random $rand_uri 1 4;', three))).toEqual([3]);
    expect(fired(site('set_random $rand_uri 1 3; set $rand_uri $arg_x;', three))).toEqual([3]);
    expect(fired(site('set_random $rand_uri 1 $arg_n;', three))).toEqual([3]);
    expect(fired(site('set $rand_uri 1;', three))).toEqual([3]);
  });
});
