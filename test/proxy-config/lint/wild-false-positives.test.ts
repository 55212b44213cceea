import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { lintNginxConfig, lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';

// The false positives of issue 26, each on the pattern as published configs write it, next to the
// near twin where the rule must still fire.
const fired = (text: string, id: string) =>
  lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
    .findings.filter((f) => f.ruleId === id)
    .map((f) => `${f.line}: ${f.what}`);

describe('forwarded-proto-missing needs TLS somewhere', () => {
  // gunicorn's deploy docs: X-Forwarded-Proto only matters when clients come in over https.
  const site = (listen: string, extra = '') => `
upstream app_server { server unix:/tmp/gunicorn.sock fail_timeout=0; }
server {
    ${listen}
    ${extra}
    server_name example.com www.example.com;
    location @proxy_to_app {
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header Host $http_host;
      proxy_redirect off;
      proxy_pass http://app_server;
    }
}`;

  it('is quiet on a server listening on plain HTTP only', () => {
    expect(fired(site('listen 80;'), 'forwarded-proto-missing')).toEqual([]);
  });

  it('fires on a TLS listener, or with TLS in front declared', () => {
    expect(
      fired(
        site('listen 443 ssl;', 'ssl_certificate a.pem; ssl_certificate_key a.key;'),
        'forwarded-proto-missing',
      ),
    ).toHaveLength(1);
    expect(fired(site('listen 80;', '# proxyops: outer-tls on'), 'forwarded-proto-missing')).toHaveLength(1);
  });
});

// enable-cors.org's nginx snippet, copied into countless configs.
const corsPreflight = (answer: string) => `
server {
  listen 80;
  location / {
     if ($request_method = 'OPTIONS') {
        add_header 'Access-Control-Allow-Origin' '*';
        add_header 'Access-Control-Allow-Methods' 'GET, POST, OPTIONS';
        add_header 'Access-Control-Allow-Headers' 'DNT,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range';
        add_header 'Access-Control-Max-Age' 1728000;
        add_header 'Content-Type' 'text/plain; charset=utf-8';
        add_header 'Content-Length' 0;
        ${answer}
     }
     root /srv/www;
  }
}`;

describe('if-in-location on the CORS preflight block', () => {
  it('is quiet when the if ends with return 204', () => {
    expect(fired(corsPreflight('return 204;'), 'if-in-location')).toEqual([]);
  });

  it('fires once per if (not per line) when the if does not return', () => {
    expect(fired(corsPreflight(''), 'if-in-location')).toEqual([
      '6: add_header inside if $request_method = OPTIONS in location /',
    ]);
  });
});

describe('add-header-content-type on return 204', () => {
  it('is quiet: nginx sends a 204 without a Content-Type of its own', () => {
    expect(fired(corsPreflight('return 204;'), 'add-header-content-type')).toEqual([]);
  });

  it('fires when the block answers with a body', () => {
    expect(fired(corsPreflight('return 200;'), 'add-header-content-type')).toHaveLength(1);
  });
});

describe('regex-unanchored', () => {
  it("is quiet on Nextcloud's location ~ \\.php(?:$|/) and phpBB's \\.php(/|$)", () => {
    const config = `server {
      location ~ \\.php(?:$|/) { fastcgi_pass php-handler; }
      location ~ \\.php(/|$) { fastcgi_pass php-handler; }
    }`;
    expect(fired(config, 'regex-unanchored')).toEqual([]);
  });

  it('still fires on \\.php followed by anything', () => {
    expect(fired('server { location ~ \\.php(?:/) { fastcgi_pass php; } }', 'regex-unanchored')).toHaveLength(
      1,
    );
  });

  it("is quiet on phpBB's deny all; internal; block", () => {
    const config = `server {
    location ~ /(config\\.php|common\\.php|cache|files|images/avatars/upload|includes|(?<!ext/)phpbb(?!\\w+)|store|vendor) {
        deny all; internal;
    }
    }`;
    expect(fired(config, 'regex-unanchored')).toEqual([]);
    expect(fired(config.replace('deny all; internal;', 'root /srv;'), 'regex-unanchored')).toHaveLength(1);
  });
});

describe('server-name-conflict with HTTP/3', () => {
  const server = (name: string) => `server {
    listen 443 ssl;
    listen [::]:443 ssl;
    listen 443 quic reuseport;
    listen [::]:443 quic reuseport;
    http2 on;
    server_name ${name};
    ssl_certificate /etc/letsencrypt/live/x/fullchain.pem;
    ssl_certificate_key /etc/letsencrypt/live/x/privkey.pem;
  }`;

  it('does not report a server conflicting with itself on listen 443 quic + listen 443 ssl', () => {
    expect(fired(server('example.com'), 'server-name-conflict')).toEqual([]);
  });

  it('still reports two servers with the same name, once per socket', () => {
    expect(fired(`${server('example.com')}\n${server('example.com')}`, 'server-name-conflict')).toHaveLength(
      4,
    );
  });
});

describe('add-header-dropped where the outer header could never be sent', () => {
  const config = (inner: string) => `server {
    listen 443 ssl;
    add_header X-Frame-Options "SAMEORIGIN";
    add_header Strict-Transport-Security "max-age=63072000" ${inner.includes('always') ? 'always' : ''};
    location ~ /\\.(?!well-known) {
        add_header X-Robots-Tag "noindex";
        ${inner.replace('always', '')}
    }
  }`;

  it('is quiet on a block answering 403/404 when the outer headers lack always', () => {
    expect(fired(config('return 403;'), 'add-header-dropped')).toEqual([]);
  });

  it('fires when an outer header has always, or the block answers 200', () => {
    expect(fired(config('return 403; always'), 'add-header-dropped')).toHaveLength(1);
    expect(fired(config('return 200;'), 'add-header-dropped')).toHaveLength(1);
  });

  it('is quiet on the locations of a server that redirects every request', () => {
    const redirect = `server {
    listen 80;
    add_header Strict-Transport-Security "max-age=63072000" always;
    return 301 https://$host$request_uri;
    location /static/ { add_header Cache-Control "public"; }
  }`;
    expect(fired(redirect, 'add-header-dropped')).toEqual([]);
    expect(fired(redirect.replace('return 301', '# return 301'), 'add-header-dropped')).toHaveLength(1);
  });
});

describe('keep-alive findings on php-fpm and on groups without a pool', () => {
  // Nextcloud's documented set-up: a php-fpm upstream used by fastcgi_pass only.
  const nextcloud = `
upstream php-handler {
    server 127.0.0.1:9000;
}
server {
    listen 80;
    location ~ \\.php(?:$|/) {
        include fastcgi_params;
        fastcgi_pass php-handler;
    }
}`;

  it('says nothing about keep-alive for a FastCGI upstream', () => {
    const findings = lintNginxConfig({
      mainFile: 'x.conf',
      files: ['x.conf'],
      directives: parseNginxConfig(nextcloud, 'x.conf'),
    }).findings;
    expect(findings.filter((f) => f.ruleId.startsWith('upstream-keepalive'))).toEqual([]);
  });

  it('reports a proxied group without keepalive once, as a warning', () => {
    const proxied =
      'upstream app { server 127.0.0.1:3000; }\nserver { listen 80; location / { proxy_pass http://app; } }';
    const findings = lintNginxConfig({
      mainFile: 'x.conf',
      files: ['x.conf'],
      directives: parseNginxConfig(proxied, 'x.conf'),
    }).findings.filter((f) => f.ruleId.startsWith('upstream-keepalive'));
    expect(findings.map((f) => [f.ruleId, f.severity])).toEqual([['upstream-keepalive-missing', 'warning']]);
  });
});

describe('forwarded-proto-missing and the headers frameworks read instead', () => {
  // JupyterHub's documented nginx config sends X-Scheme, which Tornado reads.
  const jupyterhub = (header: string) => `server {
    listen 443;
    ssl on;
    ssl_certificate a.pem;
    ssl_certificate_key a.key;
    location / {
        proxy_pass http://127.0.0.1:8000;
        proxy_set_header Host $http_host;
        ${header}
    }
}`;

  it('is quiet when X-Scheme carries the scheme', () => {
    expect(fired(jupyterhub('proxy_set_header X-Scheme $scheme;'), 'forwarded-proto-missing')).toEqual([]);
  });

  it('fires when no header carries it', () => {
    expect(fired(jupyterhub(''), 'forwarded-proto-missing')).toHaveLength(1);
  });
});

describe('field corpus corrections', () => {
  it('upstream-keepalive-missing leaves a group of unix sockets alone (gunicorn, GitLab)', () => {
    const gunicorn = `upstream app_server { server unix:/tmp/gunicorn.sock fail_timeout=0; }
server { listen 80; location @proxy_to_app { proxy_pass http://app_server; } }`;
    expect(fired(gunicorn, 'upstream-keepalive-missing')).toEqual([]);
    expect(
      fired(gunicorn.replace('unix:/tmp/gunicorn.sock', '127.0.0.1:8000'), 'upstream-keepalive-missing'),
    ).toHaveLength(1);
  });

  it("default-server-missing does not fire on a snippet, whose default server may sit in another file (h5bp's templates)", () => {
    const template = `server { listen 443 ssl; server_name www.example.com; ssl_certificate a; ssl_certificate_key b; return 301 https://example.com$request_uri; }
server { listen 443 ssl; server_name example.com; ssl_certificate a; ssl_certificate_key b; }`;
    expect(fired(template, 'default-server-missing')).toEqual([]);
    expect(fired(`events {}\nhttp {\n${template}\n}`, 'default-server-missing')).toHaveLength(1);
  });
});

describe('add-header-dropped on the CORS preflight block', () => {
  // enable-cors.org's preflight answer in a server that sets security headers.
  const config = (outer: string) => `server {
    listen 443 ssl;
    add_header X-Frame-Options "SAMEORIGIN" always;
    add_header X-Content-Type-Options "nosniff" always;
    ${outer}
    location / {
      if ($request_method = 'OPTIONS') {
        add_header 'Access-Control-Allow-Origin' '*';
        add_header 'Access-Control-Max-Age' 1728000;
        return 204;
      }
    }
  }`;

  it('is quiet when only headers about a body are dropped from the 204', () => {
    expect(fired(config(''), 'add-header-dropped')).toEqual([]);
  });

  it('fires when HSTS is dropped from it', () => {
    expect(
      fired(config('add_header Strict-Transport-Security "max-age=63072000" always;'), 'add-header-dropped'),
    ).toEqual([expect.stringContaining('drops Strict-Transport-Security set at')]);
  });
});

describe('the nginx -t rules and includes that were not found', () => {
  const lintFiles = (text: string) =>
    lintNginxConfig({
      mainFile: 'x.conf',
      files: ['x.conf'],
      directives: parseNginxConfig(text, 'x.conf').map((d) =>
        d.name === 'http'
          ? {
              ...d,
              children: (d.children ?? []).map((c) =>
                c.name === 'include' ? { ...c, missing: 'ENOENT: no such file or directory' } : c,
              ),
            }
          : d,
      ),
    }).findings.map((f) => f.ruleId);

  it('upstream-undefined and ssl-certificate-missing say nothing when the group or certificate may sit in a missing include', () => {
    const config = `events {}
http {
  include conf.d/upstreams-and-tls.conf;
  server {
    listen 443 ssl;
    location ~ \\.php$ { fastcgi_pass php-handler; }
  }
}`;
    const ids = lintFiles(config);
    expect(ids).toContain('include-missing');
    expect(ids).not.toContain('upstream-undefined');
    expect(ids).not.toContain('ssl-certificate-missing');
    const without = fired(
      config.replace('  include conf.d/upstreams-and-tls.conf;\n', ''),
      'upstream-undefined',
    );
    expect(without).toHaveLength(1);
  });
});

describe('forwarded-proto-missing when proxy_params was not found', () => {
  it("is quiet on a location including Debian's proxy_params when the file is not there", async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { lintNginxConfigFiles } = await import('../../../proxy-config/config/lint-config.js');
    const dir = await mkdtemp(join(tmpdir(), 'proxyops-proxy-params-'));
    try {
      const site = join(dir, 'app');
      await writeFile(
        site,
        'server {\n  listen 443 ssl;\n  ssl_certificate a.pem;\n  ssl_certificate_key a.key;\n  location / {\n    include proxy_params;\n    proxy_pass http://127.0.0.1:8000;\n  }\n}\n',
      );
      const ids = (await lintNginxConfigFiles(site)).findings.map((f) => f.ruleId);
      expect(ids).toContain('include-missing');
      expect(ids).not.toContain('forwarded-proto-missing');
      await writeFile(join(dir, 'proxy_params'), 'proxy_set_header Host $host;\n');
      expect((await lintNginxConfigFiles(site)).findings.map((f) => f.ruleId)).toContain(
        'forwarded-proto-missing',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('alias-traversal weighs what is reachable', () => {
  // Magento's nginx.conf.sample, in both spellings it has been published with.
  const magento = (location: string, alias: string) => `
server {
    listen 80;
    set $MAGE_ROOT /var/www/magento;
    root $MAGE_ROOT/pub;
    location ${location} {
        location ~ ^/pub/media/(downloadable|customer|import|theme_customization/.*\\.xml) {
            deny all;
        }
        alias ${alias};
        add_header X-Frame-Options "SAMEORIGIN";
    }
}`;
  const severities = (text: string) =>
    lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
      .findings.filter((f) => f.ruleId === 'alias-traversal')
      .map((f) => f.severity);

  it('is quiet with a slash on both sides, a warning with a slash on neither (siblings only)', () => {
    expect(severities(magento('/pub/', '$MAGE_ROOT/pub/'))).toEqual([]);
    expect(severities(magento('/pub', '$MAGE_ROOT/pub'))).toEqual(['warning']);
  });

  it('stays an error where /pub../ reads the parent directory', () => {
    expect(severities(magento('/pub', '$MAGE_ROOT/pub/'))).toEqual(['error']);
  });
});

describe('add-header-dropped on an outer header with an empty value', () => {
  // The pattern of Discourse's nginx.sample.conf: an outer add_header with "" and static
  // locations with headers of their own.
  const config = (outer: string) => `server {
    listen 80;
    location / {
      root /var/www/discourse/public;
      ${outer}
      location ~* (fonts|assets|plugins|uploads)/.*\\.(eot|ttf|woff|woff2|ico|otf)$ {
        expires 1y;
        add_header Cache-Control public,immutable;
      }
    }
  }`;

  it('is quiet when the dropped header is an ordinary one with an empty value (nginx sends nothing for it)', () => {
    expect(fired(config('add_header X-Debug "";'), 'add-header-dropped')).toEqual([]);
    expect(fired(config("add_header X-Debug '';"), 'add-header-dropped')).toEqual([]);
  });

  it('still fires for ETag "" and Last-Modified "", which remove the header: dropping them brings it back', () => {
    expect(fired(config('add_header ETag "";'), 'add-header-dropped')).toEqual([
      expect.stringContaining('drops ETag set at'),
    ]);
    expect(fired(config('add_header Last-Modified "";'), 'add-header-dropped')).toHaveLength(1);
  });

  it('still fires for a non-empty value; not for a value made only of $upstream_* variables where nothing proxies', () => {
    expect(fired(config('add_header X-Debug "1";'), 'add-header-dropped')).toHaveLength(1);
    // Nothing in this server proxies: $upstream_cache_status is empty everywhere, the header never sent
    // (issue 38; published-false-positives.test.ts has where it still fires).
    expect(fired(config('add_header X-Cached $upstream_cache_status;'), 'add-header-dropped')).toEqual([]);
  });
});

describe('upstream rules on a group no proxy_pass uses', () => {
  // A Home Assistant site file: a second group for WebSockets, left over after both locations moved to the first.
  const site = (websocketPass: string) => `upstream hass { server homeassistant:8123; }
upstream hass_websocket { server homeassistant:8123; }
server {
  listen 80;
  location / { proxy_pass http://hass; }
  location /api/websocket { proxy_pass ${websocketPass}; proxy_http_version 1.1; }
}`;
  const main = (text: string) => `events {}\nhttp {\n${text}\n}`;
  const groups = (text: string, id: string) => fired(text, id).filter((f) => f.includes('upstream '));

  it('is quiet on the unused group, in a main config and in a site file', () => {
    for (const text of [main(site('http://hass')), site('http://hass')]) {
      expect(fired(text, 'upstream-keepalive-missing')).toEqual([
        expect.stringContaining('upstream hass has'),
      ]);
      expect(groups(text, 'upstream-dns-stale')).toEqual([expect.stringContaining('upstream hass:')]);
    }
  });

  it('fires on both groups once both are used, or when a proxy_pass with variables may use it', () => {
    for (const pass of ['http://hass_websocket', '$ws_backend'])
      expect(fired(main(site(pass)), 'upstream-keepalive-missing')).toHaveLength(2);
    expect(groups(main(site('http://hass_websocket/api/websocket')), 'upstream-dns-stale')).toHaveLength(2);
  });

  it('keeps reporting the groups of a snippet holding groups only: their users sit in other files', () => {
    const upstreamsOnly = 'upstream hass { server homeassistant:8123; }';
    expect(fired(upstreamsOnly, 'upstream-keepalive-missing')).toHaveLength(1);
    expect(fired(upstreamsOnly, 'upstream-dns-stale')).toHaveLength(1);
  });
});

describe('forwarded-proto-missing where a missing include could not have set it', () => {
  // A site file as published: server-level snippets left out, and a location / with its own
  // proxy_set_header lines, which replace every server-level one.
  const site = (serverInclude: string, locationLines: string) => `server {
  listen 443 ssl;
  server_name app.example.com;
  ssl_certificate a.pem;
  ssl_certificate_key a.key;
  ${serverInclude}
  location / {
    ${locationLines}
    proxy_pass http://127.0.0.1:8123;
  }
}
`;
  const findingsOf = async (text: string) => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { lintNginxConfigFiles } = await import('../../../proxy-config/config/lint-config.js');
    const dir = await mkdtemp(join(tmpdir(), 'proxyops-missing-include-'));
    try {
      await writeFile(join(dir, 'app'), text);
      return (await lintNginxConfigFiles(join(dir, 'app'))).findings.map((f) => f.ruleId);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  const own = 'proxy_set_header Host $host;\n    proxy_set_header Upgrade $http_upgrade;';

  it('fires when the only missing include is at server level and the location sets its own headers', async () => {
    const ids = await findingsOf(site('include snippets/proxy-headers.conf;', own));
    expect(ids).toContain('include-missing');
    expect(ids).toContain('forwarded-proto-missing');
  });

  it('is quiet when the missing include could have set it: in the location, or at server level with no headers in the location', async () => {
    expect(await findingsOf(site('', `${own}\n    include snippets/proxy-headers.conf;`))).not.toContain(
      'forwarded-proto-missing',
    );
    expect(await findingsOf(site('include snippets/proxy-headers.conf;', ''))).not.toContain(
      'forwarded-proto-missing',
    );
  });
});

describe('a regex with more pattern after its $', () => {
  // Discourse's nginx.sample.conf: the / after $ means the location never matches.
  const emoji = (pattern: string) => `server {
    listen 80;
    location ~ ${pattern} { expires 1y; add_header Cache-Control public; }
  }`;
  const lint = (text: string) =>
    lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
      .findings.filter((f) => f.ruleId.startsWith('regex-'))
      .map((f) => [f.ruleId, f.severity, f.what]);

  it('is reported as never matching (a warning), not as unanchored', () => {
    expect(lint(emoji('/_?emoji.*\\.(png|gif|jpg|jpeg)$/'))).toEqual([
      [
        'regex-invalid',
        'warning',
        'location /_?emoji.*\\.(png|gif|jpg|jpeg)$/: "$" is followed by "/", so the pattern never matches',
      ],
    ]);
    expect(lint(emoji('^/x$\\/'))).toEqual([['regex-invalid', 'warning', expect.stringContaining('"\\/"')]]);
  });

  it('says nothing of the kind where $ may end the match', () => {
    expect(lint(emoji('/_?emoji.*\\.(png|gif|jpg|jpeg)$'))).toEqual([]);
    for (const pattern of ['^/a$/?', '^/a(?:$|/)', '^/a$|^/b/', '^/a[$/]', '^/a\\$/', '^/a$\\n'])
      expect(lint(emoji(pattern)).filter(([id]) => id === 'regex-invalid')).toEqual([]);
  });
});

describe('add-header-dropped on ETag "" under etag off', () => {
  // Discourse's config/nginx.sample.conf: `etag off;` in the server, `add_header ETag "";` in
  // location /, static locations inside it with a Cache-Control of their own.
  const discourse = (inner: string, etag = 'etag off;') => `server {
    listen 80;
    ${etag}
    location / {
      root /var/www/discourse/public;
      add_header ETag "";
      location ~ ^/plugins/ {
        expires 1y;
        add_header Cache-Control public,immutable;
        ${inner}
      }
    }
  }`;

  it('is quiet on a static location: with etag off nginx sends no ETag for a file anyway', () => {
    expect(fired(discourse(''), 'add-header-dropped')).toEqual([]);
  });

  it('still fires where etag is on, or where the location (or one inside it) proxies: the upstream ETag comes back', () => {
    expect(fired(discourse('', ''), 'add-header-dropped')).toHaveLength(1);
    expect(fired(discourse('', 'etag on;'), 'add-header-dropped')).toHaveLength(1);
    expect(fired(discourse('proxy_pass http://discourse;'), 'add-header-dropped')).toHaveLength(1);
    expect(
      fired(discourse('location ~ /x/ { fastcgi_pass 127.0.0.1:9000; }'), 'add-header-dropped'),
    ).toHaveLength(1);
  });
});

describe('add-header-dropped in a location that never matches', () => {
  // Discourse's config/nginx.sample.conf, the emoji location: "$" followed by "/" never matches
  // (regex-invalid says so), so no request ever gets its headers, dropped or not.
  const discourse = (pattern: string) => `server {
    listen 80;
    location / {
      add_header X-Frame-Options DENY;
      location ~ ${pattern} {
        expires 1y;
        add_header Cache-Control public,immutable;
      }
    }
  }`;

  it('is quiet there: regex-invalid alone reports the dead block', () => {
    expect(fired(discourse('/_?emoji.*\\.(png|gif|jpg|jpeg)$/'), 'add-header-dropped')).toEqual([]);
    expect(fired(discourse('/_?emoji.*\\.(png|gif|jpg|jpeg)$/'), 'regex-invalid')).toHaveLength(1);
  });

  it('still fires once the pattern can match', () => {
    expect(fired(discourse('/_?emoji.*\\.(png|gif|jpg|jpeg)$'), 'add-header-dropped')).toHaveLength(1);
  });
});

describe('alias-traversal on a capture followed by a fixed path component', () => {
  // CSUA/services-nginx's user pages. Live nginx 1.22: /~../x opens /home/../public_html/x, while
  // %2F, %2e%2e and /~a/../.. are decoded and normalised first (or answered 400): outside /home only
  // paths ending in the fixed public_html are reachable, like the sibling names of `alias /y`.
  const userdir = (alias: string, pattern = '^/~(.+?)(/.*)?$') => `server {
    listen 80;
    location ~ ${pattern} {
      alias ${alias};
    }
  }`;
  const severities = (text: string) =>
    lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
      .findings.filter((f) => f.ruleId === 'alias-traversal')
      .map((f) => [f.severity, f.what]);

  it('is a warning naming the fixed component that bounds the reach', () => {
    expect(severities(userdir('/home/$1/public_html$2'))).toEqual([
      ['warning', expect.stringContaining('"/public_html" follows it')],
    ]);
    expect(severities(userdir('/home/$1/public_html/$2', '^/~(.+?)/(.*)$'))).toEqual([
      ['warning', expect.stringContaining('"/public_html" follows it')],
    ]);
  });

  it('stays an error where the capture ends the path, or what follows is not a fixed name', () => {
    expect(severities(userdir('/home/$1$2'))).toEqual([['error', expect.any(String)]]);
    expect(severities(userdir('/home/$1/$2'))).toEqual([['error', expect.any(String)]]);
    expect(severities(userdir('/home/$1/..$2'))).toEqual([['error', expect.any(String)]]);
    // $2 glued to the name: /~../x/ + "_old" reaches /public_html_old, any name starting so.
    expect(severities(userdir('/home/$1/public_html$2', '^/~(.+?)(.*)$'))).toEqual([
      ['error', expect.any(String)],
    ]);
  });
});

describe('upstream-dns-stale beyond proxy_pass', () => {
  // ThemeSama/wordpress-nginx-docker's nginx/wordpress.conf: php-fpm in another container, by name.
  const wordpress = (pass: string) => `server {
    listen 80;
    location ~ \\.php$ {
      ${pass}
    }
  }`;

  it('fires on fastcgi_pass, uwsgi_pass, scgi_pass and grpc_pass to a host name: resolved once, at start', () => {
    expect(fired(wordpress('fastcgi_pass wordpress:9000;'), 'upstream-dns-stale')).toEqual([
      '4: fastcgi_pass wordpress:9000: wordpress is resolved once, when nginx starts',
    ]);
    expect(fired(wordpress('uwsgi_pass uwsgi://app.internal:3031;'), 'upstream-dns-stale')).toHaveLength(1);
    expect(fired(wordpress('scgi_pass app.internal:4000;'), 'upstream-dns-stale')).toHaveLength(1);
    expect(fired(wordpress('grpc_pass grpcs://api.internal:50051;'), 'upstream-dns-stale')).toHaveLength(1);
  });

  it('is quiet on an address, a unix socket, localhost and a group name', () => {
    for (const pass of [
      'fastcgi_pass 127.0.0.1:9000;',
      'fastcgi_pass unix:/run/php/php-fpm.sock;',
      'fastcgi_pass localhost:9000;',
      'fastcgi_pass php;',
      'grpc_pass grpc://backend;',
    ])
      expect(fired(wordpress(pass), 'upstream-dns-stale'), pass).toEqual([]);
    // In a whole config a bare `php` is refused (upstream-undefined: no port in upstream), not stale.
    expect(fired(`events {}\nhttp {\n${wordpress('fastcgi_pass php;')}\n}\n`, 'upstream-dns-stale')).toEqual(
      [],
    );
  });

  it("calls PeerTube's `server ${PEERTUBE_HOST}` an unsubstituted template placeholder, not a host name", () => {
    // Chocobozzz/PeerTube's support/nginx/peertube, an envsubst template.
    const text =
      'upstream backend {\n  server ${PEERTUBE_HOST};\n}\nserver {\n  listen 80;\n  location / { proxy_pass http://backend; }\n}\n';
    expect(fired(text, 'upstream-dns-stale')).toEqual([
      '2: upstream backend: server ${PEERTUBE_HOST} is an unsubstituted template placeholder (an upstream server takes no variables): lint the rendered file',
    ]);
  });
});

describe('origin-regex-unsafe tells a deny-list from an allow-list', () => {
  // perusio/drupal-with-nginx blacklist.conf:16-19 and sites-available/example.com.conf:37-39: a
  // match means "bad", so a match anywhere in the Referer is what the author wants.
  const blacklist = (entries: string, gate: string) => `
map $http_referer $bad_referer {
    default 0;
    ${entries}
}
server {
    listen 80;
    ${gate}
    location / { root /srv/www; }
}`;
  const words = '~(?i)(adult|babes|click|diamond|forsale|poker|porn|casino|replica) 1;';
  const refuse = 'if ($bad_referer) {\n        return 444;\n    }';

  it('is quiet on a referer blocklist whose matches only lead to a refusal', () => {
    expect(fired(blacklist(words, refuse), 'origin-regex-unsafe')).toEqual([]);
    expect(
      fired(
        blacklist(words, 'if ($http_referer ~* (poker|casino)) {\n        return 403;\n    }'),
        'origin-regex-unsafe',
      ),
    ).toEqual([]);
  });

  it('is quiet on the blocklist alone (blacklist.conf linted on its own): its words name no site', () => {
    expect(fired(blacklist(words, ''), 'origin-regex-unsafe')).toEqual([]);
  });

  it('still fires on an exemption in the blocklist, on a map read elsewhere, and on a negated if', () => {
    // An entry that maps to 0 lets its matches past the gate: that is an allow-list entry.
    expect(
      fired(blacklist(`${words}\n    ~example\\.com 0;`, refuse), 'origin-regex-unsafe').map((f) =>
        f.replace(/:.*/, ''),
      ),
    ).toEqual(['5']);
    expect(fired(blacklist(words, 'add_header X-Bad $bad_referer;'), 'origin-regex-unsafe')).toHaveLength(1);
    expect(
      fired(
        blacklist(words, 'if ($http_referer !~ example\\.com) {\n        return 403;\n    }'),
        'origin-regex-unsafe',
      ),
    ).toHaveLength(1);
  });
});

describe('status-page-exposed sees an if ($var) { return 404; } gate', () => {
  // perusio/drupal-with-nginx nginx_status_vhost.conf:10-16 and nginx_status_allowed_hosts.conf:6-10.
  const status = (defaultValue: string) => `
geo $dont_show_nginx_status {
    ${defaultValue}
    127.0.0.1 0; # allow on the loopback
    192.168.1.0/24 0; # allow on an internal network
}
server {
    listen 80;
    location /nginx_status {
        if ($dont_show_nginx_status) {
            return 404;
        }
        stub_status on;
        access_log off;
    }
}`;

  it('is quiet when the geo refuses by default and lists the allowed hosts', () => {
    expect(fired(status('default 1;'), 'status-page-exposed')).toEqual([]);
  });

  it('is quiet on the location alone (nginx_status_vhost.conf linted on its own): the gate is trusted', () => {
    const location = status('default 1;').replace(/geo[^}]*}/, '');
    expect(fired(location, 'status-page-exposed')).toEqual([]);
  });

  it('fires when the geo lets everyone it does not list in', () => {
    expect(fired(status(''), 'status-page-exposed')).toEqual([
      '13: stub_status in location /nginx_status: if ($dont_show_nginx_status) refuses only what geo $dont_show_nginx_status (x.conf:2) lists: its default "" lets everyone else in',
    ]);
    expect(fired(status('default 0;'), 'status-page-exposed')).toHaveLength(1);
  });

  it('fires on a gate the client opens by leaving a query argument, header or cookie out', () => {
    for (const variable of ['arg_hide', 'http_x_hide', 'cookie_hide', 'invalid_referer'])
      expect(
        fired(
          `server { listen 80; location /s { if ($${variable}) { return 404; } stub_status; } }`,
          'status-page-exposed',
        ),
        variable,
      ).toEqual([
        `1: stub_status in location /s: if ($${variable}) refuses only requests that set $${variable}: a client that leaves it out sees the page`,
      ]);
  });
});

describe('a client value after a fixed prefix in the proxy_pass host (Netdata)', () => {
  // netdata/netdata docs, Running-behind-nginx.md, "multiple servers" (conf.d file).
  const netdata = `
upstream backend-server1 { server 10.1.1.103:19999; keepalive 64; }
upstream backend-server2 { server 10.1.1.104:19999; keepalive 64; }
server {
    listen 80;
    location ~ /netdata/(?<behost>.*?)/(?<ndpath>.*) {
        proxy_http_version 1.1;
        proxy_set_header Connection "keep-alive";
        proxy_pass http://backend-$behost/$ndpath$is_args$args;
    }
}`;
  const whole = (body: string) => `events {} http { ${body} }`;
  const severities = (text: string, id: string) =>
    lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
      .findings.filter((f) => f.ruleId === id)
      .map((f) => f.severity);

  it('is no SSRF in a whole config without a resolver: only the backend-* groups can match', () => {
    expect(fired(whole(netdata), 'proxy-pass-ssrf')).toEqual([]);
  });

  it('is a warning in a snippet, whose http level may set a resolver', () => {
    expect(severities(netdata, 'proxy-pass-ssrf')).toEqual(['warning']);
  });

  it('is SSRF again with a resolver: backend-x.evil.example is the client’s host', () => {
    expect(severities(whole(`resolver 127.0.0.53; ${netdata}`), 'proxy-pass-ssrf')).toEqual(['error']);
  });

  it('needs no resolver when upstream groups start with the prefix (upstream-dns-stale quiet)', () => {
    expect(fired(whole(netdata), 'upstream-dns-stale')).toEqual([]);
    expect(fired(whole(netdata.replaceAll('backend-server', 'node')), 'upstream-dns-stale')).toHaveLength(1);
  });
});

describe('alias-traversal on a prefix location that never matches', () => {
  it('stays quiet on a regex written without ~ (mailcow site-defaults.conf): no URI reaches it', () => {
    const mailcow =
      'server { location (^/SOGo/so/ControlPanel/Products/([^/]*)/Resources/(.*)$) { alias /usr/lib/GNUstep/SOGo/$1.SOGo/Resources/$2; } }';
    expect(fired(mailcow, 'alias-traversal')).toEqual([]);
    expect(fired('server { location /i { alias /data/images/; } }', 'alias-traversal')).toHaveLength(1);
  });
});

// Found by a fourth newcomer trial (Bepacom's Home Assistant add-on, a user's /etc/nginx tree,
// SWAG, Penpot), each beside the near twin where the rule still fires.
describe('allow-without-deny with an explicit allow all', () => {
  // The add-on's "accessible: true" renders its ingress server open on purpose.
  const server = (last: string) => `
server {
    listen 80;
    allow 172.30.32.0/24;
    allow 127.0.0.0/24;
    ${last}
    location / { proxy_pass http://127.0.0.1:8099; }
}`;

  it('is quiet: the list opens the block to everyone in so many words', () => {
    expect(fired(server('allow all;'), 'allow-without-deny')).toEqual([]);
  });

  it('still fires on the same list without it', () => {
    expect(fired(server(''), 'allow-without-deny')).toHaveLength(1);
  });
});

describe('return-bypasses-allow-deny on a redirect to the same host over HTTPS', () => {
  const site = (answer: string) => `
http {
    deny 203.0.113.7;
    server { listen 80; server_name assets.example.org; ${answer} }
    server { listen 443 ssl; server_name assets.example.org; ssl_certificate c.pem; ssl_certificate_key k.pem; root /srv; }
}`;

  it('is quiet: the deny applies where the redirect points', () => {
    expect(fired(site('return 301 https://$host$request_uri;'), 'return-bypasses-allow-deny')).toEqual([]);
    expect(
      fired(site('rewrite ^ https://$server_name$request_uri permanent;'), 'return-bypasses-allow-deny'),
    ).toEqual([]);
  });

  it('still fires on a body, or a redirect elsewhere', () => {
    expect(fired(site('return 200 "ok";'), 'return-bypasses-allow-deny')).toHaveLength(1);
    expect(
      fired(site('return 302 https://other.example.org/?t=$arg_t;'), 'return-bypasses-allow-deny'),
    ).toHaveLength(1);
    // The same host, but a URL of the config's own: the token goes to whoever the list denies.
    expect(
      fired(site('return 301 https://$host/login?token=s3cr3t;'), 'return-bypasses-allow-deny'),
    ).toHaveLength(1);
    expect(fired(site('return https://$host$request_uri;'), 'return-bypasses-allow-deny')).toEqual([]);
    // The server's own name written out, with rewrite's `?` (a user's /etc/nginx, assets.mediaad.org).
    expect(
      fired(
        site('rewrite ^ https://assets.example.org$request_uri? redirect;'),
        'return-bypasses-allow-deny',
      ),
    ).toEqual([]);
    expect(
      fired(
        site('rewrite ^ https://elsewhere.example.org$request_uri? redirect;'),
        'return-bypasses-allow-deny',
      ),
    ).toHaveLength(1);
  });
});

describe('ssl-certificate-missing beside an include of mime.types not found', () => {
  // A whole nginx.conf linted away from /etc/nginx: mime.types is not there, and holds no certificate.
  const conf = (include: string) => `
events {}
http {
    ${include}
    server { listen 443 ssl; server_name a.example.org; }
}`;
  /** Lints TEXT as nginx.conf of a directory of its own, so that its includes are looked for. */
  async function firedFromFile(text: string, id: string): Promise<string[]> {
    const dir = await mkdtemp(join(tmpdir(), 'proxyops-wild-'));
    try {
      await writeFile(join(dir, 'nginx.conf'), text);
      const report = await lintNginxConfigFiles(join(dir, 'nginx.conf'));
      return report.findings.filter((f) => f.ruleId === id).map((f) => f.what);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('fires: mime.types can only hold a types block', async () => {
    expect(await firedFromFile(conf('include mime.types;'), 'ssl-certificate-missing')).toHaveLength(1);
  });

  it('stays quiet beside a missing include that could hold the certificate', async () => {
    expect(await firedFromFile(conf('include snippets/ssl.conf;'), 'ssl-certificate-missing')).toEqual([]);
    expect(await firedFromFile(conf('include snippets/snakeoil.conf;'), 'ssl-certificate-missing')).toEqual(
      [],
    );
  });
});

describe('alias-traversal on an internal location', () => {
  // Penpot: the backend's X-Accel-Redirect names the file; a rewrite can carry a client's URI there too.
  const site = (internal: string) => `
server {
    listen 80;
    location /download { rewrite ^/download(.*)$ /internal/assets$1 last; }
    location /internal/assets {
        ${internal}
        alias /opt/data/assets/;
    }
}`;
  const severities = (text: string) =>
    lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
      .findings.filter((f) => f.ruleId === 'alias-traversal')
      .map((f) => f.severity);

  it('is a warning: only the app or a rewrite reaches it, and /download../ through the rewrite reads the parent', () => {
    expect(severities(site('internal;'))).toEqual(['warning']);
  });

  it('is an error on the same location open to clients', () => {
    expect(severities(site(''))).toEqual(['error']);
  });
});

describe('errors whose harm depends on what sits around the config are warnings', () => {
  const severities = (text: string, id: string) =>
    lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
      .findings.filter((f) => f.ruleId === id)
      .map((f) => f.severity);

  it('proxy-set-header-duplicate on Host: Node and Python upstreams read one of the two', () => {
    // SWAG's qbittorrent.subdomain.conf: proxy_params-style lines plus its own Host line.
    const site = `server { listen 80; location / { proxy_set_header Host $host; proxy_set_header Host 127.0.0.1:8080; proxy_pass http://127.0.0.1:8080; } }`;
    expect(severities(site, 'proxy-set-header-duplicate')).toEqual(['warning']);
  });

  it('upstream-undefined: a single word beside groups may be a compose service; a FastCGI name without port is refused', () => {
    const conf = (pass: string) => `
events {}
http {
  upstream backend { server 127.0.0.1:8080; }
  server { listen 80; location / { proxy_pass http://backend; } location /web/ { ${pass} } }
}`;
    expect(severities(conf('proxy_pass http://web/web/;'), 'upstream-undefined')).toEqual(['warning']);
    // One slip from a group: the typo nginx -t refuses ("host not found in upstream").
    expect(severities(conf('proxy_pass http://backnd;'), 'upstream-undefined')).toEqual(['error']);
    expect(severities(conf('fastcgi_pass php;'), 'upstream-undefined')).toEqual(['error']);
    // A stream server's proxy_pass names a stream upstream, not one of http's.
    const stream = `${conf('proxy_pass http://backend;')}
stream { upstream db { server 127.0.0.1:5432; } server { listen 15432; proxy_pass db; } }`;
    expect(severities(stream, 'upstream-undefined')).toEqual([]);
  });
});

describe('a path capture in a set value after a fixed host (home-reverse-proxy)', () => {
  // dudeofawesome/home-reverse-proxy, sites-available/hooks.oc.orleans.io (linked from sites-enabled).
  const hooks = `
server {
  listen 80;
  location ~ /(.*)$ {
    resolver 127.0.0.11 valid=30s;
    set $upstream webhooks:9000/hooks/$1;
    proxy_pass http://$upstream;
    proxy_set_header Host $host;
  }
}`;
  const location = (body: string) =>
    `server { listen 80; location ~ /(.*)$ { resolver 127.0.0.11; ${body} } }`;
  const severities = (text: string) =>
    lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
      .findings.filter((f) => f.ruleId === 'proxy-pass-ssrf')
      .map((f) => f.severity);

  it('is quiet: nginx takes the host from before the first "/", and $1 comes after it', () => {
    expect(fired(hooks, 'proxy-pass-ssrf')).toEqual([]);
    expect(fired(location('proxy_pass http://webhooks:9000/hooks/$1;'), 'proxy-pass-ssrf')).toEqual([]);
    // The "/" may come from a set of its own, or the scheme from another variable.
    expect(
      fired(location('set $u webhooks:9000; proxy_pass http://$u/hooks/$1;'), 'proxy-pass-ssrf'),
    ).toEqual([]);
    expect(
      fired(location('set $s http; set $u webhooks/$1; proxy_pass $s://$u;'), 'proxy-pass-ssrf'),
    ).toEqual([]);
  });

  it('fires when the set puts the client value in the host', () => {
    expect(fired(location('set $u $1; proxy_pass http://$u;'), 'proxy-pass-ssrf')).toEqual([
      '1: proxy_pass http://$u: $1 of location ~ /(.*)$ names the host',
    ]);
    expect(fired(location('set $h $http_host; proxy_pass http://$h/hooks/$1;'), 'proxy-pass-ssrf')).toEqual([
      '1: proxy_pass http://$h/hooks/$1: $http_host names the host',
    ]);
    expect(fired(location('set $a $1; set $u $a; proxy_pass http://$u/x;'), 'proxy-pass-ssrf')).toHaveLength(
      1,
    );
    expect(fired(location('set $u webhooks:9000; proxy_pass http://$u$1;'), 'proxy-pass-ssrf')).toHaveLength(
      1,
    );
  });

  it('fires on a client subdomain, through set as written straight into proxy_pass', () => {
    expect(fired(location('set $u $1.example.com; proxy_pass http://$u;'), 'proxy-pass-ssrf')).toEqual([
      '1: proxy_pass http://$u: $1 of location ~ /(.*)$ names the host',
    ]);
    expect(fired(location('proxy_pass http://$1.example.com;'), 'proxy-pass-ssrf')).toHaveLength(1);
  });

  it('treats a fixed prefix through set as written straight into proxy_pass', () => {
    // With a resolver, in a snippet (its http level may set one), in a whole config without one.
    const forms = (body: string) => {
      const snippet = location(body).replace('resolver 127.0.0.11;', '');
      return [location(body), snippet, `events {} http { ${snippet} }`].map(severities);
    };
    for (const [direct, throughSet] of [
      ['proxy_pass http://backend-$1;', 'set $u backend-$1; proxy_pass http://$u;'],
      ['proxy_pass http://backend-$1/x;', 'set $u backend-$1/x; proxy_pass http://$u;'],
    ] as const) {
      expect(forms(throughSet)).toEqual([['error'], ['warning'], []]);
      expect(forms(throughSet)).toEqual(forms(direct));
    }
  });

  it('fires when any one set of the variable, in an if or not, reaches the host', () => {
    expect(
      fired(location('if ($arg_raw) { set $u $1; } proxy_pass http://$u;'), 'proxy-pass-ssrf'),
    ).toHaveLength(1);
    const both = 'set $u webhooks:9000/hooks/$1; if ($arg_raw) { set $u $1; } proxy_pass http://$u;';
    expect(fired(location(both), 'proxy-pass-ssrf')).toHaveLength(1);
    expect(
      fired(
        'server { location / { if ($http_x_to ~ ^(.+)$) { set $u $1; } proxy_pass http://$u; } }',
        'proxy-pass-ssrf',
      ),
    ).toEqual(['1: proxy_pass http://$u: $1 of if ($http_x_to ~ ^(.+)$) names the host']);
  });
});

describe('proxy-header-dropped on headers from auth_request_set where auth_request is off', () => {
  // Frigate: proxy.conf at server level sends the auth subrequest's Remote-* values; the login
  // locations switch auth_request off and set headers of their own.
  const server = (login: string) => `
server {
    listen 80;
    auth_request /auth;
    auth_request_set $user $upstream_http_remote_user;
    auth_request_set $role $upstream_http_remote_role;
    proxy_set_header Remote-User $user;
    proxy_set_header Remote-Role $role;
    location /auth { internal; proxy_pass http://127.0.0.1:5001/auth; }
    location /api/login {
        ${login}
        proxy_set_header X-Forwarded-Proto $scheme;
        proxy_pass http://127.0.0.1:5001;
    }
}`;

  it('is quiet: without auth_request the variables are empty and nginx would send no header', () => {
    expect(fired(server('auth_request off;'), 'proxy-header-dropped')).toEqual([]);
  });

  it('still fires where the subrequest runs and fills them', () => {
    expect(fired(server(''), 'proxy-header-dropped')).toHaveLength(1);
  });
});
