import { describe, expect, it } from 'vitest';
import { toConfigEvidence } from '../../../proxy-config/core/diagnose/config-facts.js';
import { locationsServing } from '../../../proxy-config/core/diagnose/locations-serving.js';
import { describeSettingInEffect } from '../../../proxy-config/core/diagnose/setting-in-effect.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';

const CONFIG = `
worker_rlimit_nofile 4096;
events { worker_connections 1024; }
http {
  client_max_body_size 2m;
  proxy_set_header X-Forwarded-Proto $scheme;
  upstream app { server 10.0.0.5:8080; server 10.0.0.6:8080; keepalive 32; }
  server {
    listen 443 ssl;
    proxy_read_timeout 30s;
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
    location /upload/ {
      client_max_body_size 50m;
      proxy_read_timeout 2m;
      proxy_pass http://127.0.0.1:9000/files/;
    }
    location = /health { return 200; }
    location ~ \\.php$ { proxy_pass http://127.0.0.1:9001; }
  }
}`;

function evidence() {
  return toConfigEvidence({
    mainFile: 'nginx.conf',
    files: ['nginx.conf'],
    directives: parseNginxConfig(CONFIG, 'nginx.conf'),
  });
}

describe('toConfigEvidence', () => {
  it('gives each location its effective limits, timeouts, keep-alive and headers, with inheritance', () => {
    const { locations, workerRlimitNofile, workerConnections } = evidence();
    expect({ workerRlimitNofile, workerConnections }).toEqual({
      workerRlimitNofile: 4096,
      workerConnections: 1024,
    });
    const [root, upload, health, php] = locations;
    expect(root).toMatchObject({
      path: '/',
      exact: false,
      clientMaxBodySize: 2 * 1024 * 1024,
      proxyPass: 'http://app',
      proxyReadTimeoutMs: 30_000,
      proxyHttpVersion: '1.1',
      upstreamKeepalive: 32,
      upstreamServers: ['10.0.0.5:8080', '10.0.0.6:8080'],
    });
    // One proxy_set_header in the location drops the http-level X-Forwarded-Proto (nginx inheritance).
    expect(root?.proxySetHeaders).toEqual({ connection: '' });
    expect(root?.where).toMatch(/^nginx\.conf:11 server 443 location \/$/);
    expect(upload).toMatchObject({
      clientMaxBodySize: 50 * 1024 * 1024,
      proxyReadTimeoutMs: 120_000,
      proxyHttpVersion: '1.0',
      upstreamKeepalive: null,
      upstreamServers: ['127.0.0.1:9000'],
      proxySetHeaders: { 'x-forwarded-proto': '$scheme' },
    });
    expect(health).toMatchObject({ path: '/health', exact: true, proxyPass: null });
    expect(php?.path).toBe('~\\.php$');
  });
});

describe('the setting in effect for a location', () => {
  it('names the directive nginx applies (inherited from server or http), its line, and where to change it', () => {
    const [root, upload] = evidence().locations;
    // client_max_body_size of `location /` comes from http (line 5), proxy_read_timeout from the server (line 10).
    expect(root?.clientMaxBodySizeSet).toEqual({
      name: 'client_max_body_size',
      value: '2m',
      setAt: 'nginx.conf:5',
      setIn: 'http',
      inherited: true,
      locationAt: 'nginx.conf:11',
      serverAt: 'nginx.conf:8',
      httpAt: 'nginx.conf:4',
    });
    expect(root?.proxyReadTimeoutSet).toMatchObject({
      setAt: 'nginx.conf:10',
      setIn: 'server',
      inherited: true,
    });
    expect(upload?.clientMaxBodySizeSet).toMatchObject({
      setAt: 'nginx.conf:17',
      setIn: 'location /upload/',
      inherited: false,
    });
    expect(describeSettingInEffect(root!.proxyReadTimeoutSet, '30 s', root!.where)).toBe(
      'config: proxy_read_timeout 30s (30 s) at nginx.conf:10, in server, inherited: in effect for ' +
        'nginx.conf:11 server 443 location /; change it at nginx.conf:10 (for all of server), or set it ' +
        'inside the location (nginx.conf:11) for it alone',
    );
    expect(describeSettingInEffect(upload!.clientMaxBodySizeSet, '50 MiB', upload!.where)).toMatch(
      /^config: client_max_body_size 50m \(50 MiB\) at nginx\.conf:17, in location \/upload\/: .*; change it at nginx\.conf:17$/,
    );
  });

  it("names nginx's default and the blocks that can set it when no level does", () => {
    const config = toConfigEvidence({
      mainFile: 'nginx.conf',
      files: ['nginx.conf'],
      directives: parseNginxConfig(
        'http {\n  server {\n    location / { proxy_pass http://a:1; }\n  }\n}',
        'nginx.conf',
      ),
    });
    const [root] = config.locations;
    expect(describeSettingInEffect(root!.proxyReadTimeoutSet, '60 s', root!.where)).toBe(
      "config: proxy_read_timeout not set: nginx's default 60s (60 s) applies to nginx.conf:3 server location /; " +
        'set it inside the location (nginx.conf:3) for it alone, or in its server (nginx.conf:2), or in http (nginx.conf:1)',
    );
  });
});

describe('locationsServing', () => {
  const requests = (ps: string[]) => ps.map((path) => ({ path, servers: null }));
  const paths = (ps: string[]) => locationsServing(requests(ps), evidence()).map((l) => l.path);

  it('picks as nginx does: exact, longest prefix, regex before a plain prefix', () => {
    expect(paths(['/health'])).toEqual(['/health']);
    expect(paths(['/upload/a.bin'])).toEqual(['/upload/']);
    expect(paths(['/upload'])).toEqual(['/']);
    expect(paths(['/upload/x', '/upload/y'])).toEqual(['/upload/']);
    // A regex location wins over the "/" prefix for a path it matches.
    expect(paths(['/index.php'])).toEqual(['~\\.php$']);
    expect(paths(['/upload/x', '/a.php'])).toEqual(['/upload/', '~\\.php$']);
  });

  it('every location when no path is known; none without a config', () => {
    expect(locationsServing([], evidence())).toHaveLength(4);
    expect(locationsServing(requests(['/x']), null)).toEqual([]);
  });
});
