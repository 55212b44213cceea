import { describe, expect, it } from 'vitest';
import { locationSettings } from '../../../proxy-config/core/nginx-config/location-settings.js';
import { matchLocation } from '../../../proxy-config/core/nginx-config/match-location.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { listServers } from '../../../proxy-config/core/nginx-config/query.js';
import type { NginxConfig } from '../../../proxy-config/core/nginx-config/types.js';

const CONFIG: NginxConfig = {
  mainFile: 'n.conf',
  files: ['n.conf'],
  directives: parseNginxConfig(
    `http {
  client_max_body_size 10m;
  upstream app { server 127.0.0.1:9000; keepalive 16; keepalive_timeout 4s; }
  server {
    proxy_read_timeout 30s;
    location / { root html; }
    location = /exact { return 204; }
    location /api/ {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      location /api/upload/ { client_max_body_size 100m; proxy_pass http://app; }
      location ~ /api/.*\\.csv$ { return 403; }
    }
    location ^~ /static/ { root html; }
    location ~* \\.(png|jpg)$ { expires 1d; }
  }
}`,
    'n.conf',
  ),
};
const server = listServers(CONFIG)[0]!;
const match = (uri: string) => {
  const found = matchLocation(server, uri);
  return found ? found.block.args.join(' ') : undefined;
};

describe('matchLocation (nginx location selection)', () => {
  it.each([
    ['/exact', '= /exact'],
    ['/exact/more', '/'],
    ['/api/users', '/api/'],
    ['/api/upload/a', '/api/upload/'],
    ['/api/report.csv', '~ /api/.*\\.csv$'],
    ['/api/logo.PNG', '~* \\.(png|jpg)$'],
    ['/static/logo.png', '^~ /static/'],
    ['/about', '/'],
  ])('%s → location %s', (uri, expected) => {
    expect(match(uri)).toBe(expected);
  });
});

describe('locationSettings', () => {
  it('gives the effective values with where they were set, nginx defaults otherwise', () => {
    const upload = matchLocation(server, '/api/upload/x')!;
    const settings = locationSettings(CONFIG, upload);
    expect(settings.clientMaxBodySize).toMatchObject({ value: '100m', parsed: 100 * 1024 * 1024 });
    expect(settings.clientMaxBodySize.setBy?.line).toBe(12);
    expect(settings.proxyReadTimeout).toMatchObject({ value: '30s', parsed: 30_000 });
    expect(settings.proxyConnectTimeout).toMatchObject({ value: '60s', parsed: 60_000, setBy: undefined });
    expect(settings.proxyHttpVersion.value).toBe('1.1');
    expect(settings.proxyHeaders.get('connection')).toBe('');
    expect(settings.upstream).toMatchObject({
      name: 'app',
      keepalive: 16,
      keepaliveTimeout: { parsed: 4_000 },
    });

    const root = locationSettings(CONFIG, matchLocation(server, '/about')!);
    expect(root.clientMaxBodySize.value).toBe('10m');
    expect(root.proxyPass).toBeUndefined();
    expect(root.upstream).toBeUndefined();
  });
});
