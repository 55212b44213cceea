import { describe, expect, it } from 'vitest';
import {
  hostHeaderPattern,
  planCatchAllServers,
  primaryName,
} from '../../../../proxy-config/core/render/host-safety.js';
import type { ServerSpec } from '../../../../proxy-config/core/spec/proxy-spec.js';

const server = (names: string[], listen: Array<Partial<ServerSpec['listen'][number]>>): ServerSpec => ({
  names,
  listen: listen.map((l) => ({ port: 80, tls: false, defaultServer: false, ...l })),
  redirectToHttps: false,
  http2: true,
  snippets: [],
  routes: [],
  static: [],
});
const socket = (l: ServerSpec['listen'][number]) => `${l.address ? `${l.address}:` : ''}${l.port}`;

/** nginx's `~*` regex, read with the same meaning by JavaScript for these simple patterns. */
const matches = (pattern: string, host: string) => new RegExp(pattern.replace(/^~\*/, ''), 'i').test(host);

describe('host safety', () => {
  it('guards every socket no server is the default of, and only those', () => {
    const plan = planCatchAllServers(
      [
        server(['a.test'], [{ port: 80 }, { port: 443, tls: true }]),
        server(['b.test'], [{ port: 80 }, { address: '127.0.0.1', port: 8080, defaultServer: true }]),
      ],
      'misdirected',
      'edge',
      socket,
    );
    expect(plan.map((c) => [c.listen, c.tls, c.close])).toEqual([
      ['80', false, false],
      ['443', true, false],
    ]);
    expect(JSON.parse(plan[0]!.body.replace('$proxyops_request_id', 'x'))).toMatchObject({
      status: 421,
      code: 'MISDIRECTED_REQUEST',
      layer: 'edge',
    });
    expect(planCatchAllServers([server(['a.test'], [{}])], 'close', 'edge', socket)[0]!.close).toBe(true);
  });

  it('lets through a Host that names the server (any case, with a port), and nothing else', () => {
    const pattern = hostHeaderPattern(['api.example.com', '*.apps.example.com', 'www.*', '~^re$'])!;
    for (const ok of ['api.example.com', 'API.example.com:8443', 'x.apps.example.com', 'www.example.org'])
      expect(matches(pattern, ok), ok).toBe(true);
    for (const bad of [
      'evil.example',
      'apiXexample.com',
      'api.example.com.evil',
      'api.example.com:123456',
      'apps.example.com',
      're',
    ])
      expect(matches(pattern, bad), bad).toBe(false);
    expect(hostHeaderPattern(['~^only-regex$'])).toBeUndefined();
    expect(primaryName(['*.x.test', 'api.x.test'])).toBe('api.x.test');
  });
});
