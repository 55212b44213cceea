import { describe, expect, it } from 'vitest';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { originRegexProblem } from '../../../proxy-config/core/lint/rules/origin-regex.js';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';

// Forms the installed nginx (1.22) cannot load, so they have no fixture pair run through nginx -t:
// directives of nginx 1.29.3 and of NGINX Plus, and third-party modules.
const fired = (text: string, id: string) =>
  lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
    .findings.filter((f) => f.ruleId === id)
    .map((f) => `${f.line}: ${f.what}`);

describe('add-header-dropped with add_header_inherit (nginx 1.29.3)', () => {
  const config = (inherit: string) => `server {
    add_header Strict-Transport-Security "max-age=31536000" always;
    location / {
      ${inherit}
      add_header X-Frame-Options DENY;
    }
  }`;

  it('fires with the default, or an explicit add_header_inherit on', () => {
    expect(fired(config(''), 'add-header-dropped')).toEqual([
      expect.stringMatching(/^5: add_header in location \/ drops Strict-Transport-Security/),
    ]);
    expect(fired(config('add_header_inherit on;'), 'add-header-dropped')).toHaveLength(1);
  });

  it('stays silent when the location merges, or drops the outer headers on purpose', () => {
    expect(fired(config('add_header_inherit merge;'), 'add-header-dropped')).toEqual([]);
    expect(fired(config('add_header_inherit off;'), 'add-header-dropped')).toEqual([]);
  });

  it('follows a merge set at an outer level, and counts the merged headers as outer ones', () => {
    const merged = `http {
      add_header_inherit merge;
      add_header Strict-Transport-Security "max-age=31536000" always;
      server { add_header X-Frame-Options DENY; location / { add_header X-A 1; } }
    }`;
    expect(fired(merged, 'add-header-dropped')).toEqual([]);
    const mergedThenReplaced = `http {
      add_header Strict-Transport-Security "max-age=31536000" always;
      server {
        add_header_inherit merge;
        add_header X-Frame-Options DENY;
        location / { add_header_inherit on; add_header X-A 1; }
      }
    }`;
    expect(fired(mergedThenReplaced, 'add-header-dropped')).toEqual([
      expect.stringContaining('drops Strict-Transport-Security, X-Frame-Options'),
    ]);
  });
});

describe('status-page-exposed with the NGINX Plus pages', () => {
  it.each(['api write=on;', 'status;'])('fires on %s without an access list', (directive) => {
    expect(fired(`server { listen 80; location /api { ${directive} } }`, 'status-page-exposed')).toHaveLength(
      1,
    );
    expect(
      fired(
        `server { listen 80; location /api { ${directive} allow 10.0.0.1; deny all; } }`,
        'status-page-exposed',
      ),
    ).toEqual([]);
  });

  it('accepts an access list inherited from the server, or a login', () => {
    expect(
      fired(
        'server { listen 80; allow 10.0.0.1; deny all; location /s { stub_status; } }',
        'status-page-exposed',
      ),
    ).toEqual([]);
    expect(
      fired('server { listen 80; location /s { auth_basic "s"; stub_status; } }', 'status-page-exposed'),
    ).toEqual([]);
    expect(
      fired('server { listen 80; location /s { allow 10.0.0.1; stub_status; } }', 'status-page-exposed'),
    ).toEqual(['1: stub_status in location /s lets everyone in: no deny all before an allow of everyone']);
  });
});

it('add-header-multiline reads the values of headers-more', () => {
  expect(fired('server { more_set_headers "X-A: a\n b" "X-B: c"; }', 'add-header-multiline')).toEqual([
    '1: more_set_headers X-A: its value holds a line break',
  ]);
  expect(fired('server { more_set_headers -s 404 "X-A: a"; }', 'add-header-multiline')).toEqual([]);
});

describe('origin-regex-unsafe: which regexes other sites can match', () => {
  it.each([
    ['^https://example\\.com$', 'origin', false, undefined],
    ['^https?://(www\\.)?example\\.com$', 'origin', false, undefined],
    ['^https://([a-z0-9-]+\\.)*example\\.com(:[0-9]+)?$', 'origin', false, undefined],
    ['^https://(a\\.com|b\\.com)$', 'origin', false, undefined],
    ['^https://.*\\.example\\.com$', 'origin', false, undefined],
    ['^https://example\\.com/', 'referer', false, undefined],
    ['^(www\\.)?example\\.com/', 'referer', true, undefined],
    ['https://example\\.com$', 'origin', false, 'no "^"'],
    ['^https://example\\.com', 'origin', false, 'nothing ends the host'],
    ['^https://(a\\.com|b\\.com)', 'origin', false, 'nothing ends the host'],
    ['^https://example.com$', 'origin', false, 'unescaped "."'],
    ['^https://(www.)?example\\.com$', 'origin', false, 'unescaped "."'],
    ['^https://.*example\\.com$', 'origin', false, 'runs straight into the domain'],
    ['^https://.*\\.example\\.com/', 'referer', false, 'run into the path'],
    ['\\.google\\.', 'referer', true, 'no "^"'],
    // Gixy-Next's origins fixtures (more_origins_*, unsafe_origin_*, origin_w_slash, origin_fp):
    ['^([^!]+)?https://example\\.com$', 'origin', false, 'before the scheme'],
    ['^([^:/]+)?https?://example\\.com/', 'referer', false, 'before the scheme'],
    ['^https://example\\.com([^/]+)?$', 'origin', false, 'after the domain name'],
    ['^example\\.com([^/]+)?$', 'origin', false, 'after the domain name'],
    ['^([^/:]+)?example\\.com$', 'origin', false, 'runs straight into the domain'],
    ['^https?://example\\.com/', 'origin', false, 'never matches'],
    ['^https?://example\\.com/?$', 'origin', false, undefined],
    ['^https?://l.o\\.example\\.com$', 'origin', false, undefined],
    ['^https?://some.example\\.com/', 'referer', false, 'unescaped "."'],
    ['^https://x.example\\.co\\.uk$', 'origin', false, 'unescaped "."'],
    ['^https://a.b\\.example\\.co\\.uk$', 'origin', false, undefined],
  ] as const)('%s (%s)', (regex, checked, hostFirst, problem) => {
    const found = originRegexProblem(regex, false, checked, hostFirst);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  it('reads map keys on $http_origin and flags the misspelt $http_referrer', () => {
    expect(
      fired(
        'map $http_origin $ok { default ""; "~*^https://a.example$" 1; } server { }',
        'origin-regex-unsafe',
      ),
    ).toEqual([expect.stringContaining('unescaped "."')]);
    expect(
      fired(
        'server { location / { if ($http_referrer !~ "^https://a\\.example/") { return 403; } } }',
        'origin-regex-unsafe',
      ),
    ).toEqual([expect.stringContaining('$http_referrer is always empty')]);
  });
});

describe('proxy-pass-ssrf', () => {
  it.each([
    ['location / { proxy_pass http://$host$request_uri; }', '$host'],
    ['location / { set $target $http_x_target; proxy_pass https://$target; }', '$http_x_target'],
    ['location ~ ^/p/(?<h>[^/]+)/ { proxy_pass http://$h; }', '$h of location'],
    ['location / { proxy_pass $arg_scheme://app; }', '$arg_scheme'],
  ])('fires on %s', (location, source) => {
    expect(fired(`server { ${location} }`, 'proxy-pass-ssrf')).toEqual([expect.stringContaining(source)]);
  });

  it.each([
    'location / { proxy_pass http://app$request_uri; }',
    'location ~ ^/p/([a-z]+)/ { proxy_pass http://$1.internal; }',
    'location @fallback { proxy_pass http://$http_x_target; }',
    'location /x { internal; proxy_pass http://$http_x_target; }',
    'location / { proxy_pass http://$upstream_from_a_module; }',
  ])('stays silent on %s', (location) => {
    expect(fired(`server { ${location} }`, 'proxy-pass-ssrf')).toEqual([]);
  });
});

describe('cases where gixy and nginx disagree, or a value is read through set', () => {
  it('http-splitting fires on a named capture in a redirecting rewrite: nginx escapes only $1..$9 there', () => {
    // gixy lists this as a false positive; nginx 1.22 sends /proxy/a/%0d%0a back as a raw CR LF.
    expect(
      fired(
        'server { rewrite ^/proxy/(a|b)/(?<path>\\W*)$ http://storage/$path redirect; }',
        'http-splitting',
      ),
    ).toHaveLength(1);
    expect(
      fired('server { rewrite ^/proxy/(a|b)/(\\W*)$ http://storage/$2 redirect; }', 'http-splitting'),
    ).toEqual([]);
  });

  it('proxy-pass-ssrf reads a target variable through its set', () => {
    expect(
      fired('server { location / { set $u "http://some$request_uri"; proxy_pass $u; } }', 'proxy-pass-ssrf'),
    ).toEqual([]);
    expect(
      fired('server { location / { set $u "http://$arg_host/x"; proxy_pass $u; } }', 'proxy-pass-ssrf'),
    ).toEqual([expect.stringContaining('$arg_host names the host')]);
  });
});

describe('return-bypasses-allow-deny', () => {
  const inLocation = (body: string) => `server { location /abc { allow 127.0.0.2; deny all; ${body} } }`;
  it.each([
    'rewrite ^ https://example.test/ last;',
    'rewrite ^ $scheme://example.test/;',
    'rewrite ^ /x redirect;',
    'return 200 "secret";',
  ])('fires on %s', (body) => {
    expect(fired(inLocation(body), 'return-bypasses-allow-deny')).toHaveLength(1);
  });
  it.each(['rewrite ^ /x last;', 'rewrite ^ HTTPS://example.test/ break;', 'return 403;'])(
    'stays silent on %s',
    (body) => {
      expect(fired(inLocation(body), 'return-bypasses-allow-deny')).toEqual([]);
    },
  );
  it('checks a named location against its own access list', () => {
    expect(
      fired(
        'server { location @h { allow 127.0.0.1; deny all; return 200 "secret"; } }',
        'return-bypasses-allow-deny',
      ),
    ).toHaveLength(1);
  });
});

describe('status-page-exposed reads the access list as nginx does', () => {
  it.each([
    ['location /s { stub_status; allow all; deny all; }', 1],
    ['location /s { stub_status; deny all; allow all; }', 0],
    ['location /s { stub_status; allow 0.0.0.0/0; deny all; }', 1],
    ['location /s { stub_status; satisfy any; allow all; auth_basic "s"; }', 1],
    ['location /s { stub_status; satisfy any; allow 10.0.0.1; deny all; auth_basic "s"; }', 0],
    ['location /s { stub_status; auth_basic off; }', 1],
    ['stub_status;', 1],
  ])('server { listen 80; %s } fires %i time(s)', (body, count) => {
    expect(fired(`server { listen 80; ${body} }`, 'status-page-exposed')).toHaveLength(count);
  });
});

it('host-header-spoofable reads variable names case-insensitively and inside a longer value, as nginx does', () => {
  expect(fired('server { proxy_set_header Host $ARG_host; }', 'host-header-spoofable')).toHaveLength(1);
  expect(
    fired('server { proxy_set_header Host $arg_sub.example.com; }', 'host-header-spoofable'),
  ).toHaveLength(1);
  expect(fired('server { proxy_set_header Host $host:$server_port; }', 'host-header-spoofable')).toEqual([]);
});

describe('resolver-external: a name public DNS cannot answer is private', () => {
  const external = (resolver: string) => fired(`http { resolver ${resolver}; }`, 'resolver-external');

  it('stays quiet on a TLD the root zone does not delegate, and on home.arpa', () => {
    // gixy's resolver_unregisterable_domain_fp: no public nameserver answers for .osa.
    expect(external('adomain.osa')).toEqual([]);
    expect(external('adomain.osa:5353')).toEqual([]);
    expect(external('dns.corp.example valid=30s')).toEqual([]);
    expect(external('ns1.home.arpa')).toEqual([]);
    expect(external('kube-dns.kube-system.svc.cluster.local.')).toEqual([]);
  });

  it('reports a name under a delegated TLD, an IDN TLD included', () => {
    expect(external('dns.google')).toHaveLength(1);
    expect(external('ns1.example.COM')).toHaveLength(1);
    expect(external('ns.xn--p1ai')).toHaveLength(1);
    expect(external('in-addr.arpa')).toHaveLength(1);
  });
});

describe('worker-rlimit-nofile-low without worker_rlimit_nofile', () => {
  const low = (events: string) =>
    fired(`worker_processes 1; events { ${events} } http { }`, 'worker-rlimit-nofile-low');

  it("stays quiet when the connections fit the usual inherited 1024 (nginx's default 512)", () => {
    // gixy's worker_rlimit_nofile_vs_connections_no_directives_fp.
    expect(low('')).toEqual([]);
    expect(low('worker_connections 512;')).toEqual([]);
  });

  it("asks for it when they do not (Debian's stock 768)", () => {
    expect(low('worker_connections 768;')).toEqual([
      expect.stringMatching(
        /worker_rlimit_nofile is not set: .* worker_connections 768; set it to 1536 or more/,
      ),
    ]);
  });
});

describe('TLS rules: an error where the list leaves only weak ones, a warning beside strong ones', () => {
  const severities = (text: string, id: string) =>
    lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
      .findings.filter((f) => f.ruleId === id)
      .map((f) => f.severity);
  const protocols = (value: string) => severities(`http { ssl_protocols ${value}; }`, 'tls-protocols-weak');
  const ciphers = (value: string) => severities(`http { ssl_ciphers ${value}; }`, 'tls-ciphers-weak');

  it("warns of TLS 1.0/1.1 (Debian 12's stock line) and SSLv3 beside TLS 1.2, errs on them alone", () => {
    expect(protocols('TLSv1 TLSv1.1 TLSv1.2 TLSv1.3')).toEqual(['warning']);
    // OpenSSL 1.1.0 and later build without SSLv3: offered only where nginx links an older one.
    expect(protocols('SSLv3 TLSv1 TLSv1.2')).toEqual(['warning']);
    // Alone: no current client connects (OpenSSL 3 refuses the handshakes): the site is down.
    expect(protocols('TLSv1 TLSv1.1')).toEqual(['error']);
    expect(protocols('SSLv3')).toEqual(['error']);
    expect(protocols('TLSv1.2 TLSv1.3')).toEqual([]);
  });

  it('warns of weak suites beside strong ones (whether OpenSSL offers them depends on its build), errs on weak ones alone', () => {
    expect(ciphers('ECDHE-RSA-AES128-GCM-SHA256:DES-CBC3-SHA')).toEqual(['warning']);
    expect(ciphers('HIGH:3DES:!aNULL')).toEqual(['warning']);
    expect(ciphers('HIGH:RC4-SHA')).toEqual(['warning']);
    expect(ciphers('HIGH:EXP-RC4-MD5:DES-CBC3-SHA')).toEqual(['warning']);
    // Alone they leave current browsers nothing to agree on, or nginx -t refuses the list.
    expect(ciphers('DES-CBC3-SHA')).toEqual(['error']);
    expect(ciphers('3DES:!aNULL')).toEqual(['error']);
    expect(ciphers('RC4-SHA:RC4-MD5')).toEqual(['error']);
    expect(ciphers('HIGH:!aNULL:!MD5')).toEqual([]);
  });

  it('follows an exclusion later in the list, by class, by MAC and by name', () => {
    expect(ciphers('ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-DES-CBC3-SHA:!3DES')).toEqual([]);
    expect(ciphers('HIGH:ADH-AES128-SHA:AECDH-AES128-SHA:!aNULL')).toEqual([]);
    expect(ciphers('HIGH:NULL-SHA256:!eNULL')).toEqual([]);
    expect(ciphers('HIGH:RC4-SHA:!SHA1')).toEqual([]);
    expect(ciphers('HIGH:DES-CBC-SHA:!LOW')).toEqual([]);
    expect(ciphers('HIGH:RC4-SHA:!RC4-SHA')).toEqual([]);
    // An exclusion of another class leaves it: !aNULL does not take out RC4.
    expect(ciphers('HIGH:RC4-SHA:!aNULL')).toEqual(['warning']);
  });
});

describe('map-without-default on a response variable', () => {
  const map = (source: string) =>
    fired(`http { map ${source} $cors { ~*image/ "*"; ~*font/ "*"; } }`, 'map-without-default');

  it("stays quiet: known only once the response is made, it cannot gate a request (h5bp's $cors)", () => {
    expect(map('$sent_http_content_type')).toEqual([]);
    expect(map('$upstream_http_content_type')).toEqual([]);
  });

  it('reports a map of the request without a default', () => {
    expect(map('$http_content_type')).toHaveLength(1);
  });
});

describe('events-missing', () => {
  it('reports a stream-only nginx.conf without events, as nginx -t does ("no events section")', () => {
    expect(fired('stream { server { listen 5353; proxy_pass 127.0.0.1:53; } }', 'events-missing')).toEqual([
      '1: this config has stream {} but no events {}: nginx refuses to start (no "events" section)',
    ]);
    expect(
      fired('events {} stream { server { listen 5353; proxy_pass 127.0.0.1:53; } }', 'events-missing'),
    ).toEqual([]);
  });
});
