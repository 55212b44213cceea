import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveJwtSecret } from '../../../api/auth/tokens.js';
import { API_DEFAULTS } from '../../../api/defaults.js';
import { createHealthState } from '../../../api/health/health-state.js';
import { createApp } from '../../../api/http/app.js';
import { createStore } from '../../../api/store/create-store.js';
import type { Store } from '../../../api/store/store.js';
import { send } from '../support/http-client.js';
import { captureLogs } from '../support/harness.js';

/**
 * This host's own address on a network interface, preferring a private one (RFC 1918 or an IPv6
 * unique-local address): a peer there is what the old default ("loopback, linklocal, uniquelocal")
 * believed, and what a neighbour on the same private network would connect from.
 */
function hostAddress(): { address: string; url: string } {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && !a.address.startsWith('fe80'));
  const isPrivate = (a: string) => /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|f[cd])/i.test(a);
  const chosen = addresses.find((a) => isPrivate(a!.address)) ?? addresses[0];
  if (!chosen) throw new Error('this host has no address besides loopback: the test needs one');
  const url = chosen.family === 'IPv6' ? `[${chosen.address}]` : chosen.address;
  return { address: chosen.address, url };
}

describe('X-Forwarded-For and X-Request-ID are believed only from the configured proxies', () => {
  let store: Store;
  let server: Server;
  let port: number;
  const { logger, logLines } = captureLogs();
  beforeAll(async () => {
    store = await createStore();
    // The shipped default trust setting, a tight limit to see whose budget a request counts against.
    const app = createApp({
      store,
      config: { ...API_DEFAULTS, rateLimitMax: 3, rateLimitWindowMs: 60_000 },
      logger,
      jwtSecret: resolveJwtSecret({}),
      health: createHealthState('ready'),
    });
    server = createServer(app);
    // Every address: the test reaches it over loopback and over the host's own interface.
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await store?.close();
  });

  it('trusts loopback only by default, where the rendered nginx connects from', () => {
    expect(API_DEFAULTS.trustProxy).toBe('loopback');
  });

  it('a client on the network cannot pick its rate-limit budget with a forged X-Forwarded-For', async () => {
    const host = hostAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const forged = `203.0.113.${i + 1}`;
      const res = await send(`http://${host.url}:${port}/orders`, { headers: { 'x-forwarded-for': forged } });
      statuses.push(res.status);
    }
    // Three within the budget (401: no token), then the one budget of the real address is spent.
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
  });

  it('a client on the network cannot plant its own request id; the proxy on loopback can', async () => {
    const host = hostAddress();
    const planted = `planted-${randomUUID()}`;
    const direct = await send(`http://${host.url}:${port}/health/live`, {
      headers: { 'x-request-id': planted },
    });
    expect(direct.headers['x-request-id']).not.toBe(planted);
    expect(direct.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(logLines.some((line) => line.requestId === planted)).toBe(false);

    const proxied = `nginx-${randomUUID()}`;
    const viaLoopback = await send(`http://127.0.0.1:${port}/health/live`, {
      headers: { 'x-request-id': proxied },
    });
    expect(viaLoopback.headers['x-request-id']).toBe(proxied);
    await expect.poll(() => logLines.some((line) => line.requestId === proxied)).toBe(true);
  });
});
