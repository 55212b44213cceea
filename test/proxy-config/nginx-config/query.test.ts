import { describe, expect, it } from 'vitest';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { parseProxyPassTarget } from '../../../proxy-config/core/nginx-config/proxy-pass-target.js';
import {
  childrenNamed,
  effectiveDirectives,
  effectiveProxyHeaders,
  effectiveValue,
  listLocations,
  listServers,
  listUpstreams,
  locationMatch,
  proxyPassOf,
} from '../../../proxy-config/core/nginx-config/query.js';
import type { NginxConfig } from '../../../proxy-config/core/nginx-config/types.js';
import { parseNginxSize, parseNginxTime } from '../../../proxy-config/core/nginx-config/units.js';

const configOf = (text: string): NginxConfig => ({
  mainFile: 'n.conf',
  files: ['n.conf'],
  directives: parseNginxConfig(text, 'n.conf'),
});

const CONFIG = configOf(`
http {
  client_max_body_size 10m;
  proxy_set_header X-Forwarded-Proto $scheme;
  proxy_set_header Host $host;
  upstream app { server 127.0.0.1:9000; keepalive 16; }
  server {
    proxy_read_timeout 30s;
    location /upload/ {
      client_max_body_size 100m;
      proxy_pass http://app;
      location /upload/big/ { proxy_read_timeout 5m; }
    }
    location ~ \\.php$ {
      proxy_set_header X-Request-ID $request_id;
      if ($request_method = POST) { proxy_pass http://app; }
    }
  }
}
stream { server { listen 9000; } }
`);

describe('nginx config queries', () => {
  const [upload, big, php] = listLocations(CONFIG);

  it('lists http locations with their chain, nested ones included, stream servers excluded', () => {
    expect(listLocations(CONFIG).map((l) => l.block.args.join(' '))).toEqual([
      '/upload/',
      '/upload/big/',
      '~ \\.php$',
    ]);
    expect(big?.chain.map((b) => b.name)).toEqual(['#root', 'http', 'server', 'location', 'location']);
    expect(listServers(CONFIG)).toHaveLength(1);
    expect([...listUpstreams(CONFIG).keys()]).toEqual(['app']);
  });

  it('finds the effective value with inheritance http → server → location', () => {
    expect(effectiveValue(upload!.chain, 'client_max_body_size')).toBe('100m');
    expect(effectiveValue(php!.chain, 'client_max_body_size')).toBe('10m');
    expect(effectiveValue(upload!.chain, 'proxy_read_timeout')).toBe('30s');
    expect(effectiveValue(big!.chain, 'proxy_read_timeout')).toBe('5m');
    expect(effectiveValue(php!.chain, 'keepalive_timeout', '75s')).toBe('75s');
  });

  it('drops every outer proxy_set_header once a level sets one, like nginx', () => {
    expect([...effectiveProxyHeaders(upload!.chain).keys()]).toEqual(['x-forwarded-proto', 'host']);
    expect([...effectiveProxyHeaders(php!.chain).keys()]).toEqual(['x-request-id']);
    expect(effectiveDirectives(php!.chain, 'add_header')).toEqual([]);
  });

  it('finds proxy_pass in the location or its if block, never inherited', () => {
    expect(proxyPassOf(upload!.block)?.args).toEqual(['http://app']);
    expect(proxyPassOf(php!.block)?.line).toBe(16);
    expect(proxyPassOf(big!.block)).toBeUndefined();
    expect(locationMatch(php!.block)).toEqual({ modifier: '~', path: '\\.php$' });
    expect(locationMatch({ name: 'location', args: ['=/x'], file: '', line: 0 })).toEqual({
      modifier: '=',
      path: '/x',
    });
  });

  it('parses proxy_pass targets, times and sizes', () => {
    expect(parseProxyPassTarget('http://app')).toMatchObject({ host: 'app', uri: undefined, hasPort: false });
    expect(parseProxyPassTarget('http://127.0.0.1:8080/v1/')).toMatchObject({
      host: '127.0.0.1:8080',
      uri: '/v1/',
      hasPort: true,
    });
    expect(parseProxyPassTarget('http://unix:/run/app.sock:/api/')).toMatchObject({
      host: 'unix:/run/app.sock',
      uri: '/api/',
    });
    expect(parseProxyPassTarget('http://$backend')?.hasVariables).toBe(true);
    expect([
      parseNginxTime('60'),
      parseNginxTime('1m30s'),
      parseNginxTime('500ms'),
      parseNginxTime('x'),
    ]).toEqual([60_000, 90_000, 500, undefined]);
    expect([
      parseNginxSize('1m'),
      parseNginxSize('512k'),
      parseNginxSize('0'),
      parseNginxSize('1.5m'),
    ]).toEqual([1_048_576, 524_288, 0, undefined]);
  });
});

describe('nginx config queries, indexed once per tree', () => {
  it('answers from the body a block has now: a body replaced after a first question is indexed afresh', () => {
    const [server] = parseNginxConfig('server { listen 80; listen 81; }', 'n.conf');
    expect(childrenNamed(server!, 'listen').map((d) => d.args[0])).toEqual(['80', '81']);
    server!.children = parseNginxConfig('listen 82;', 'n.conf');
    expect(childrenNamed(server!, 'listen').map((d) => d.args[0])).toEqual(['82']);
    expect(childrenNamed(server!, 'server_name')).toEqual([]);
  });

  it('lists blocks of each parsed tree apart, in the order written, nested ones included', () => {
    const one = configOf('http { server { location /a/ { location /a/b/ {} } location /c/ {} } }');
    const two = configOf('http { server { location /z/ {} } }');
    expect(listLocations(one).map((l) => l.block.args[0])).toEqual(['/a/', '/a/b/', '/c/']);
    expect(listLocations(two).map((l) => l.block.args[0])).toEqual(['/z/']);
    expect(listLocations(one)).toBe(listLocations(one));
  });
});
