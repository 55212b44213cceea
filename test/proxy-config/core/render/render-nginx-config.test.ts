import { describe, expect, it } from 'vitest';
import {
  PROXYOPS_LOG_FORMAT_JSON,
  PROXYOPS_LOG_FORMAT_TEXT,
} from '../../../../proxy-config/core/render/log-formats.js';
import { renderNginxConfig } from '../../../../proxy-config/core/render/render-nginx-config.js';
import { validateSpec } from '../../../../proxy-config/core/spec/validate-spec.js';
import { readTemplates } from '../../../../proxy-config/shell/nginx/read-templates.js';

const templates = await readTemplates();

function render(extra: Record<string, unknown> = {}): string {
  const spec = validateSpec(
    {
      version: 1,
      upstreams: {
        api: {
          servers: [
            { host: '127.0.0.1', port: 8080 },
            { host: '127.0.0.1', port: 8081 },
          ],
          keepalive: 8,
        },
        web: { servers: [{ host: '::1', port: 3000 }] },
      },
      servers: [
        {
          names: ['a.example'],
          listen: [{ port: 8000 }],
          routes: [
            { path: '/api/', upstream: 'api', timeouts: { read: 58 } },
            { path: '/', upstream: 'web' },
          ],
          static: [
            { path: '/assets/', root: '/srv/www', contentHashed: true },
            { path: '/docs/', root: '/srv/www' },
          ],
        },
      ],
      ...extra,
    },
    'spec',
  );
  return renderNginxConfig(spec, templates)['nginx.conf']!;
}

/** The body of `location PATH { ... }` (locations hold no nested blocks here). */
function location(conf: string, path: string): string {
  const match = new RegExp(`location ${path.replaceAll('/', '\\/')} \\{([^}]*)\\}`).exec(conf);
  if (!match?.[1]) throw new Error(`no location ${path}`);
  return match[1];
}

describe('renderNginxConfig', () => {
  it('is deterministic: the same spec renders byte-identical files', () => {
    expect(Buffer.from(render()).equals(Buffer.from(render()))).toBe(true);
  });

  it('forwards the request id, scheme, client address and host, and echoes the id to the client', () => {
    const api = location(render(), '/api/');
    expect(api).toContain('proxy_set_header X-Request-ID $proxyops_request_id;');
    expect(api).toContain('proxy_set_header X-Forwarded-Proto $scheme;');
    // The client's own X-Forwarded-For is replaced, never appended to.
    expect(api).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    expect(api).not.toContain('$proxy_add_x_forwarded_for');
    expect(api).toContain('proxy_set_header X-Forwarded-Host $proxyops_forwarded_host_0;');
    expect(api).toContain('add_header X-Request-ID $proxyops_request_id always;');
    expect(render()).toMatch(
      /map \$http_x_request_id \$proxyops_request_id \{\s+default \$request_id;\s+"~\^\[A-Za-z0-9\._:@\/\+=-\]\{1,128\}\$" \$http_x_request_id;/,
    );
  });

  it('passes a trusted outer X-Forwarded-Proto through when asked', () => {
    const conf = render({ trustForwardedProto: true });
    expect(location(conf, '/api/')).toContain(
      'proxy_set_header X-Forwarded-Proto $proxyops_forwarded_proto;',
    );
    expect(conf).toContain('map $http_x_forwarded_proto $proxyops_forwarded_proto');
  });

  it('keeps upstream connections alive', () => {
    const conf = render();
    expect(conf).toMatch(
      /upstream api \{[^}]*server 127\.0\.0\.1:8080 [^}]*keepalive 8;[^}]*keepalive_timeout 60s;/,
    );
    expect(conf).toContain('server [::1]:3000 max_fails=3 fail_timeout=10s weight=1;');
    const v6 = render({
      servers: [
        { names: ['v6'], listen: [{ address: '::1', port: 8000 }], routes: [{ path: '/', upstream: 'web' }] },
      ],
    });
    expect(v6).toContain('listen [::1]:8000;');
    for (const path of ['/api/', '/']) {
      expect(location(conf, path)).toContain('proxy_http_version 1.1;');
      expect(location(conf, path)).toContain('proxy_set_header Connection "";');
    }
  });

  it('caches hashed assets immutable and revalidates the rest', () => {
    const conf = render();
    expect(location(conf, '/assets/')).toContain(
      'Cache-Control "public, max-age=31536000, immutable" always',
    );
    expect(location(conf, '/docs/')).toContain('Cache-Control "no-cache" always');
    expect(location(conf, '/docs/')).not.toContain('immutable');
  });

  it('says which layer answered in every location and hides the version', () => {
    const conf = render({ layerName: 'edge-1' });
    expect(conf).toContain('server_tokens off;');
    for (const path of ['/api/', '/', '/assets/', '/docs/'])
      expect(location(conf, path)).toContain('add_header X-Served-By edge-1 always;');
  });

  it('defines both log formats with every §4.8 field and buffers the access log 64k/5s', () => {
    const conf = render();
    const fields = [
      '$remote_addr',
      '$remote_user',
      '$time_local',
      '$request',
      '$status',
      '$body_bytes_sent',
      '$http_referer',
      '$http_user_agent',
      '$request_time',
      '$upstream_response_time',
      '$upstream_connect_time',
      '$upstream_header_time',
      '$upstream_addr',
      '$upstream_status',
      '$proxyops_request_id',
    ];
    for (const field of fields) {
      expect(PROXYOPS_LOG_FORMAT_TEXT).toContain(field);
      expect(PROXYOPS_LOG_FORMAT_JSON).toContain(field);
    }
    expect(conf).toContain(`log_format proxyops_text '${PROXYOPS_LOG_FORMAT_TEXT}';`);
    expect(conf).toContain(`log_format proxyops_json escape=json '${PROXYOPS_LOG_FORMAT_JSON}';`);
    expect(conf).toContain('access_log /var/log/nginx/access.log proxyops_text buffer=64k flush=5s;');
    expect(conf).toContain('error_log /var/log/nginx/error.log warn;');
    expect(conf).toContain('client_max_body_size 1m;');
  });

  it('writes per-route timeouts and body limits only where the route sets them', () => {
    const conf = render();
    expect(location(conf, '/api/')).toContain('proxy_read_timeout 58s;');
    expect(location(conf, '/')).not.toContain('proxy_read_timeout');
    expect(conf).toContain('proxy_read_timeout 55s;');
  });

  it('in container mode stays in the foreground and logs to stdout and stderr', () => {
    const conf = render({ mode: 'container' });
    expect(conf).toMatch(/^daemon off;$/m);
    expect(conf).toContain('access_log /dev/stdout proxyops_text');
    expect(conf).toContain('error_log stderr warn;');
    expect(render()).not.toContain('daemon off;');
  });

  it('does not depend on /etc/nginx', () => {
    expect(render()).not.toContain('/etc/nginx');
    expect(render()).toContain('types {');
  });
  describe('the options for a site on the internet', () => {
    const tlsServer = (extra: Record<string, unknown> = {}, routes?: unknown[]) => ({
      servers: [
        {
          names: ['a.example'],
          listen: [{ port: 8080 }, { port: 8443, tls: true }],
          tls: { certificate: '/etc/ssl/a.crt', certificateKey: '/etc/ssl/a.key' },
          routes: routes ?? [
            { path: '/', upstream: 'web' },
            { path: '/api/', upstream: 'api' },
          ],
          ...extra,
        },
      ],
    });
    /** Every server block (servers hold nested location blocks, so blocks are cut at the next `server {`). */
    const serverBlocks = (conf: string) => conf.split(/\n {4}server \{/).slice(1);

    it('websocket: Upgrade and the map only on that route; plain requests still send Connection ""', () => {
      const conf = render(
        tlsServer({}, [
          { path: '/graphql', upstream: 'api', websocket: true },
          { path: '/', upstream: 'web' },
        ]),
      );
      expect(conf).toMatch(
        /map \$http_upgrade \$proxyops_connection_upgrade \{\s+default upgrade;\s+"" "";\s+\}/,
      );
      expect(location(conf, '/graphql')).toContain('proxy_set_header Upgrade $http_upgrade;');
      expect(location(conf, '/graphql')).toContain(
        'proxy_set_header Connection $proxyops_connection_upgrade;',
      );
      expect(location(conf, '/')).toContain('proxy_set_header Connection "";');
      expect(location(conf, '/')).not.toContain('Upgrade');
      expect(render()).not.toContain('$http_upgrade');
    });

    it('security: HSTS with always on the TLS server only, hardening headers in every location', () => {
      const security = { hsts: { maxAge: 600, includeSubDomains: true } };
      const conf = render({ ...tlsServer({ redirectToHttps: true }), security });
      const hsts = 'add_header Strict-Transport-Security "max-age=600; includeSubDomains" always;';
      expect(location(conf, '/api/')).toContain(hsts);
      expect(location(conf, '/')).toContain(hsts);
      expect(location(conf, '/api/')).toContain('add_header X-Content-Type-Options "nosniff" always;');
      expect(location(conf, '/api/')).toContain('add_header X-Frame-Options "DENY" always;');
      expect(conf).not.toContain('$proxyops_hsts');
      // A server answering plain HTTP itself sends HSTS through a map of $https: empty, so none, on plain.
      const mixed = render({ ...tlsServer(), security });
      expect(mixed).toMatch(
        /map \$https \$proxyops_hsts \{\s+on "max-age=600; includeSubDomains";\s+default "";\s+\}/,
      );
      expect(location(mixed, '/api/')).toContain(
        'add_header Strict-Transport-Security "$proxyops_hsts" always;',
      );
      // On plain HTTP a browser ignores HSTS: the plain-only server of render() sends none.
      expect(render()).not.toContain('Strict-Transport-Security');
      const off = render({ ...tlsServer(), security: { hsts: null, headers: false } });
      expect(off).not.toMatch(/Strict-Transport-Security|X-Frame-Options/);
    });

    it('gzip only when enabled, with its types and minimum length', () => {
      expect(render()).not.toContain('gzip on;');
      const conf = render({ gzip: { enabled: true, types: ['application/json'], minLength: 256 } });
      expect(conf).toMatch(
        /gzip on;\s+gzip_vary on;\s+gzip_proxied any;\s+gzip_min_length 256;\s+gzip_types application\/json;/,
      );
    });

    it('http2 on TLS listeners unless turned off; the redirect keeps a TLS port other than 443', () => {
      const conf = render(tlsServer({ redirectToHttps: true }));
      expect(conf).toContain('listen 8443 ssl http2;');
      expect(conf).toContain('return 301 https://$host:8443$request_uri;');
      expect(render(tlsServer({ http2: false }))).toContain('listen 8443 ssl;');
      const standard = render(
        tlsServer({ redirectToHttps: true, listen: [{ port: 80 }, { port: 443, tls: true }] }),
      );
      expect(standard).toContain('return 301 https://$host$request_uri;');
    });

    it('trustedProxies: set_real_ip_from each address with the header, recursively', () => {
      const conf = render({ trustedProxies: { addresses: ['10.0.0.0/8', '::1'], header: 'X-Real-IP' } });
      expect(conf).toMatch(
        /set_real_ip_from 10\.0\.0\.0\/8;\s+set_real_ip_from ::1;\s+real_ip_header X-Real-IP;\s+real_ip_recursive on;/,
      );
      expect(render()).not.toContain('set_real_ip_from');
    });

    it('rateLimit and connectionLimit: a zone per route, 429 from the route', () => {
      const conf = render(
        tlsServer({}, [
          { path: '/login', upstream: 'api', rateLimit: { rate: '5r/m', burst: 3 } },
          { path: '/export', upstream: 'api', connectionLimit: 2 },
          { path: '/', upstream: 'web' },
        ]),
      );
      expect(conf).toContain('limit_req_zone $binary_remote_addr zone=proxyops_req_0_0:10m rate=5r/m;');
      expect(conf).toContain('limit_conn_zone $binary_remote_addr zone=proxyops_conn_0_1:10m;');
      expect(location(conf, '/login')).toContain('limit_req zone=proxyops_req_0_0 burst=3 nodelay;');
      expect(location(conf, '/login')).toContain('limit_req_status 429;');
      expect(location(conf, '/export')).toContain('limit_conn proxyops_conn_0_1 2;');
      expect(location(conf, '/export')).toContain('limit_conn_status 429;');
      expect(location(conf, '/')).not.toMatch(/limit_(req|conn)/);
    });

    it('resolver and snippets are placed where the spec says', () => {
      const conf = render({
        resolver: { addresses: ['127.0.0.53', '::1'], valid: 10 },
        ...tlsServer({ snippets: ['add_trailer X-A b'] }, [
          { path: '/', upstream: 'web', snippets: ['proxy_buffering off'] },
        ]),
      });
      expect(conf).toContain('resolver 127.0.0.53 [::1] valid=10s;');
      expect(serverBlocks(conf).filter((block) => block.includes('add_trailer X-A b;'))).toHaveLength(1);
      expect(location(conf, '/')).toContain('proxy_buffering off;');
    });

    it('unknownHosts: the catch-all answers 421 as a problem, or closes the connection', () => {
      const misdirected = render();
      expect(misdirected).toMatch(/listen 8000 default_server;\s+server_name _;/);
      expect(misdirected).toContain("return 421 '");
      const closed = render({ unknownHosts: 'close' });
      expect(closed).toContain('return 444;');
      expect(closed).not.toContain('return 421');
    });
  });

  it('loads njs and renders its script only when a route caches', () => {
    const specWith = (cache: boolean, extra: Record<string, unknown> = {}) =>
      validateSpec(
        {
          version: 1,
          paths: { tempDir: '/var/cache/edge/', modulesDir: '/opt/nginx/modules' },
          upstreams: { api: { servers: [{ host: '127.0.0.1', port: 8080 }] } },
          servers: [
            {
              names: ['a.example'],
              listen: [{ port: 8000 }],
              routes: [
                { path: '/catalog', upstream: 'api', cache },
                { path: '/', upstream: 'api' },
              ],
            },
          ],
          ...extra,
        },
        'spec',
      );
    const plain = renderNginxConfig(specWith(false), templates);
    expect(Object.keys(plain)).toEqual(['nginx.conf']);
    expect(plain['nginx.conf']).not.toMatch(/load_module|proxy_cache|js_/);

    const cached = renderNginxConfig(specWith(true, { cache: { maxSize: '2g', inactive: 3600 } }), templates);
    expect(Object.keys(cached).sort()).toEqual(['nginx.conf', 'proxyops-cache-age.js']);
    const conf = cached['nginx.conf']!;
    expect(conf).toMatch(/^load_module \/opt\/nginx\/modules\/ngx_http_js_module\.so;$/m);
    expect(conf).toContain(
      'proxy_cache_path /var/cache/edge/cache levels=1:2 keys_zone=proxyops_cache:10m max_size=2g inactive=3600s use_temp_path=off;',
    );
    expect(conf).toContain('js_import proxyops_cache_age from proxyops-cache-age.js;');
    const catalog = location(conf, '/catalog');
    expect(catalog).toContain('proxy_cache proxyops_cache;');
    expect(catalog).toContain(
      'proxy_cache_key "$server_port $scheme://$proxyops_forwarded_host_0$request_uri";',
    );
    expect(catalog).toContain('proxy_cache_bypass $http_authorization;');
    expect(catalog).toContain('add_header Age $proxyops_cache_age always;');
    expect(location(conf, '/')).not.toContain('proxy_cache');
    expect(cached['proxyops-cache-age.js']).toContain('export default { age };');
  });
});
