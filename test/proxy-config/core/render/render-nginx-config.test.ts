import { describe, expect, it } from 'vitest';
import {
  PROXYOPS_LOG_FORMAT_JSON,
  PROXYOPS_LOG_FORMAT_TEXT,
} from '../../../../proxy-config/core/render/log-formats.js';
import { renderNginxConfig } from '../../../../proxy-config/core/render/render-nginx-config.js';
import { validateSpec } from '../../../../proxy-config/core/spec/validate-spec.js';
import { readTemplates } from '../../../../proxy-config/shell/read-templates.js';

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
