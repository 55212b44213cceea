import { describe, expect, it } from 'vitest';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import type { NginxConfig } from '../../../proxy-config/core/nginx-config/types.js';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';

const lint = (text: string) => {
  const config: NginxConfig = {
    mainFile: 'x.conf',
    files: ['x.conf'],
    directives: parseNginxConfig(text, 'x.conf'),
  };
  return lintNginxConfig(config);
};
const fired = (text: string, id: string) =>
  lint(text)
    .findings.filter((f) => f.ruleId === id)
    .map((f) => f.what);

describe('proxy-pass-slash-mismatch follows nginx URI replacement', () => {
  const cases: Array<[string, string, string | undefined]> = [
    ['/api/', 'http://u', undefined],
    ['/api', 'http://u', undefined],
    ['/api/', 'http://u/', undefined],
    ['/api', 'http://u/', 'forwards /api/users as //users'],
    ['/api/', 'http://u/v1', 'forwards /api/users as /v1users'],
    ['/api/', 'http://u/v1/', undefined],
    ['/api', 'http://u/v1', undefined],
    ['/', 'http://u/app', 'forwards /users as /appusers'],
    ['^~ /api', 'http://u/', 'forwards /api/users as //users'],
    ['= /api', 'http://u/', undefined],
    ['~ ^/api', 'http://u', undefined],
    ['/api', 'http://$backend/', undefined],
    // A named location has no prefix to replace (nginx refuses the URI part: proxy-pass-uri-not-allowed).
    ['@app', 'http://u/', undefined],
  ];
  it.each(cases)('location %s { proxy_pass %s; }', (location, target, expected) => {
    const what = fired(
      `server { location ${location} { proxy_pass ${target}; } }`,
      'proxy-pass-slash-mismatch',
    );
    if (expected === undefined) expect(what).toEqual([]);
    else expect(what).toEqual([expect.stringContaining(expected)]);
  });

  it('ignores a location that rewrites the URI (nginx then passes the rewritten URI whole)', () => {
    expect(
      fired(
        'server { location /api { rewrite ^/api(.*)$ $1 break; proxy_pass http://u/; } }',
        'proxy-pass-slash-mismatch',
      ),
    ).toEqual([]);
  });
});

describe('lint over snippets and special cases', () => {
  it('in a snippet (no http/events block) skips main-context rules and unknown upstream names', () => {
    const ids = lint(
      'server { listen 443 ssl; server_tokens off; location / { proxy_pass http://backend; } }',
    ).findings.map((f) => f.ruleId);
    expect(ids).not.toContain('worker-rlimit-nofile-low');
    expect(ids).not.toContain('server-tokens-on');
    expect(ids).not.toContain('upstream-keepalive-missing');
    expect(ids).toContain('forwarded-proto-missing');
  });

  it('flags a missing worker_rlimit_nofile at the events block', () => {
    const report = lint(
      'worker_processes auto;\nevents {\n  worker_connections 4096;\n}\nhttp { server_tokens off; }',
    );
    expect(report.findings.map((f) => [f.ruleId, f.line])).toEqual([['worker-rlimit-nofile-low', 2]]);
    // The number to write, not only the rule: 2 × 4096.
    expect(report.findings[0]?.what).toMatch(/worker_connections 4096; set it to 8192 or more$/);
    const low = lint(
      'worker_processes auto;\nworker_rlimit_nofile 1024;\nevents { worker_connections 768; }\nhttp { server_tokens off; }',
    );
    expect(low.findings.map((f) => f.what)).toEqual([
      'worker_rlimit_nofile 1024 is below 2 × worker_connections 768: set it to 1536 or more',
    ]);
  });

  it('names the level whose X-Forwarded-Proto a location drops through proxy_set_header inheritance', () => {
    expect(
      fired(
        'server {\n  proxy_set_header X-Forwarded-Proto $scheme;\n  location / { proxy_set_header X-A 1; proxy_pass http://u; }\n  listen 443 ssl;\n}',
        'forwarded-proto-missing',
      ),
    ).toEqual([
      'location / proxies to http://u without X-Forwarded-Proto (set at x.conf:2, dropped here by a proxy_set_header of an inner level)',
    ]);
  });

  it('silences a rule with # proxyops: ignore inside the block only', () => {
    const text = `server {
  location /a { # proxyops: ignore alias-traversal
    alias /srv/a/;
  }
  location /b {
    alias /srv/b/;
  }
}`;
    const report = lint(text);
    expect(report.findings.filter((f) => f.ruleId === 'alias-traversal').map((f) => f.line)).toEqual([6]);
    expect(report.counts.ignored).toBe(1);
  });

  it('counts errors and warnings and sorts findings by line', () => {
    const report = lint('server {\n  location /s {\n    alias /srv/;\n  }\n  server_tokens on;\n}');
    expect(report.counts).toEqual({ error: 1, warning: 1, note: 0, ignored: 0 });
    expect(report.findings.map((f) => [f.line, f.ruleId, f.severity])).toEqual([
      [3, 'alias-traversal', 'error'],
      [5, 'server-tokens-on', 'warning'],
    ]);
  });
});

describe('request-id-missing', () => {
  const config = (logged: string) => `
map $http_x_request_id $rid { default $http_x_request_id; "" $request_id; }
log_format main '$remote_addr $status us=$upstream_status ${logged}';
access_log logs/access.log main;
server { proxy_set_header X-Request-ID $rid; location / { proxy_pass http://u; } }`;

  it('accepts a map variable built from $request_id in the log format', () => {
    expect(fired(config('rid=$rid'), 'request-id-missing')).toEqual([]);
  });

  it('fires when the log format holds no request id at all', () => {
    expect(fired(config('rid=$remote_port'), 'request-id-missing')).toEqual([
      'access log format "main" does not log $request_id',
    ]);
  });
});

describe('rule edge cases', () => {
  const upstream = 'upstream app { server 127.0.0.1:1; keepalive 8; }';

  it.each([
    ['Connection "keep-alive"', 'proxy_set_header Connection "keep-alive";', 0],
    ['a map defaulting to ""', 'proxy_set_header Connection $c;', 0],
    ['no Connection header', '', 1],
    ['Connection "Upgrade" (kept alive over HTTP/1.1)', 'proxy_set_header Connection "Upgrade";', 0],
    ['a variable not read here, which may say close', 'proxy_set_header Connection $http_connection;', 1],
  ])('upstream-keepalive-headers with %s', (_, header, count) => {
    const text = `map $http_upgrade $c { default ""; websocket upgrade; }
${upstream}
server { proxy_http_version 1.1; ${header} location / { proxy_pass http://app; } }`;
    expect(fired(text, 'upstream-keepalive-headers')).toHaveLength(count);
  });

  it.each([
    ['location ~ \\.html$ { expires max; }', 1],
    ['location ~* "\\.[0-9a-f]{8}\\.js$" { expires -1; }', 1],
    ['location ~* "\\.[0-9a-f]{8}\\.js$" { expires 1y; }', 0],
    ['location /static/ { add_header Cache-Control "no-cache"; }', 0],
    // Ten minutes (risan/nginx-config) or an hour (matomo-nginx's expires 1h) of HTML is chosen on purpose.
    ['location / { root html; add_header Cache-Control "public, max-age=600"; }', 0],
    ['location ~ \\.html$ { expires 1h; }', 0],
    ['location ~ \\.html$ { expires 2h; }', 1],
    ['location ~ \\.html$ { expires 30d; }', 1],
    ['location / { proxy_pass http://app; add_header Cache-Control "no-cache"; }', 0],
    ['location / { proxy_pass http://app; add_header Cache-Control "max-age=31536000, immutable"; }', 1],
  ])('cache-control-inverted: %s', (location, count) => {
    expect(fired(`server { ${location} }`, 'cache-control-inverted')).toHaveLength(count);
  });

  it.each([
    ['expires 2h', 'warning'],
    ['add_header Cache-Control "max-age=86400"', 'warning'],
    ['expires 2d', 'error'],
    ['add_header Cache-Control "max-age=600, immutable"', 'error'],
  ])('cache-control-inverted: HTML with %s is a %s', (policy, severity) => {
    const config = parseNginxConfig(`server { location ~ \\.html$ { ${policy}; } }`, 'x.conf');
    const report = lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: config });
    expect(
      report.findings.filter((f) => f.ruleId === 'cache-control-inverted').map((f) => f.severity),
    ).toEqual([severity]);
  });

  it.each([
    ['0 (unlimited) under 10m', 'client_max_body_size 0;', 1],
    ['narrower than the server', 'client_max_body_size 1m;', 0],
    ['equal to the server', 'client_max_body_size 10240k;', 0],
  ])('body-size-inconsistent: a location with %s', (_, directive, count) => {
    expect(
      fired(`server { client_max_body_size 10m; location /u/ { ${directive} } }`, 'body-size-inconsistent'),
    ).toHaveLength(count);
  });

  it('keepalive-timeout-order compares with nginx defaults when the directive is absent', () => {
    expect(
      fired('# proxyops: outer-idle-timeout 80s\nserver { listen 80; }', 'keepalive-timeout-order'),
    ).toEqual(['keepalive_timeout 75s (default) is not above the load balancer idle timeout 80s']);
  });

  it('timeout-not-nested reports an annotation that is not an nginx time at its own line', () => {
    const report = lint(
      'server {\n  # proxyops: outer-timeout soon\n  location / { proxy_pass http://u; }\n}',
    );
    expect(
      report.findings.filter((f) => f.ruleId === 'timeout-not-nested').map((f) => [f.line, f.what]),
    ).toEqual([[2, '# proxyops:outer-timeout "soon" is not an nginx time']]);
  });

  it('http-splitting catches $uri in proxy_pass, host-header-spoofable catches ${http_host}', () => {
    expect(fired('server { location / { proxy_pass http://u$uri; } }', 'http-splitting')).toHaveLength(1);
    expect(fired('server { proxy_set_header Host ${http_host}; }', 'host-header-spoofable')).toHaveLength(1);
  });

  it('server-tokens-on reports an explicit on even in a snippet', () => {
    expect(fired('server { server_tokens on; }', 'server-tokens-on')).toEqual(['server_tokens on']);
  });
});

it('leaves stream upstreams alone (they have no HTTP keep-alive)', () => {
  expect(fired('stream { upstream db { server 127.0.0.1:5432; } }', 'upstream-keepalive-missing')).toEqual(
    [],
  );
});

it('does not assume the default access log for a snippet (its main config may set one)', () => {
  const snippet = 'server { proxy_set_header X-Request-ID $request_id; location / { proxy_pass http://u; } }';
  expect(fired(snippet, 'access-log-upstream-fields')).toEqual([]);
  expect(fired(`http { ${snippet} }`, 'access-log-upstream-fields')).toEqual([
    expect.stringContaining('the default access log (combined) of proxied requests lacks $upstream_status'),
  ]);
});

it('upstream-keepalive-missing: flags a bare TCP address, not a unix socket', () => {
  const text = (target: string) => `http { server { location / { proxy_pass ${target}; } } }`;
  expect(fired(text('http://127.0.0.1:9000'), 'upstream-keepalive-missing')).toHaveLength(1);
  expect(fired(text('http://unix:/run/app.sock'), 'upstream-keepalive-missing')).toEqual([]);
});
