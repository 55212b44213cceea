import { describe, expect, it } from 'vitest';
import { withBlockParams, withLargestParams } from '../../../proxy-config/core/deploy/block-server-params.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';

const config = (text: string) => ({
  mainFile: '/etc/nginx/nginx.conf',
  files: ['/etc/nginx/nginx.conf'],
  directives: parseNginxConfig(text, '/etc/nginx/nginx.conf'),
});

const server = (host: string, port: number) => ({ host, port, maxFails: 3, failTimeout: 10, weight: 1 });

describe('withBlockParams: an adopted upstream is timed by its own block', () => {
  const text = `http { upstream app {
    # primary
    server 127.0.0.2:3001   max_fails=2  fail_timeout=1500ms;
    server 127.0.0.3:3001;
    keepalive 16;
  } }`;

  it("takes each server's max_fails and fail_timeout from its line, nginx's defaults where it writes none", () => {
    const servers = withBlockParams(
      [server('127.0.0.2', 3001), server('127.0.0.3', 3001)],
      config(text),
      'app',
    );
    expect(servers.map((s) => [s.maxFails, s.failTimeout])).toEqual([
      [2, 1.5],
      [1, 10],
    ]);
  });

  it("leaves a server the block does not list, and another upstream's, as the spec has them", () => {
    expect(withBlockParams([server('127.0.0.9', 1)], config(text), 'app')).toEqual([server('127.0.0.9', 1)]);
    expect(withBlockParams([server('127.0.0.2', 3001)], config(text), 'api')).toEqual([
      server('127.0.0.2', 3001),
    ]);
  });
});

describe('withLargestParams: across nginx hosts the slowest block sets the timing', () => {
  it('takes the largest max_fails and fail_timeout any host writes for each server, the spec where no host answered', () => {
    const spec = [server('127.0.0.2', 3001), server('127.0.0.3', 3001)];
    const web1 = withBlockParams(
      spec,
      config(
        'http { upstream app { server 127.0.0.2:3001 max_fails=1 fail_timeout=1s; server 127.0.0.3:3001 max_fails=4 fail_timeout=1s; } }',
      ),
      'app',
    );
    const web2 = withBlockParams(
      spec,
      config(
        'http { upstream app { server 127.0.0.2:3001 max_fails=2 fail_timeout=3s; server 127.0.0.3:3001 max_fails=1 fail_timeout=500ms; } }',
      ),
      'app',
    );
    const servers = withLargestParams(spec, [web1, web2]);
    expect(servers.map((s) => [s.maxFails, s.failTimeout])).toEqual([
      [2, 3],
      [4, 1],
    ]);
    expect(servers[0]!.weight).toBe(1);
    expect(withLargestParams(spec, [])).toEqual(spec);
  });
});
