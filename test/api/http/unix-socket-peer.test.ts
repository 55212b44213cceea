import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveJwtSecret } from '../../../api/auth/tokens.js';
import { API_DEFAULTS } from '../../../api/defaults.js';
import { createHealthState } from '../../../api/health/health-state.js';
import { createApp } from '../../../api/http/app.js';
import { createStore } from '../../../api/store/create-store.js';
import type { Store } from '../../../api/store/store.js';
import { captureLogs } from '../support/harness.js';

// Behind an upstream slot nginx connects over a unix socket, whose peer has no address: its
// X-Forwarded-Host (with the port the client used) must still make the links.
describe('an instance on a unix socket believes the proxy that connects to it', () => {
  let store: Store;
  let server: Server;
  let dir: string;
  let socket: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-unix-peer-'));
    socket = join(dir, 'api.sock');
    store = await createStore();
    const app = createApp({
      store,
      config: API_DEFAULTS,
      logger: captureLogs().logger,
      jwtSecret: resolveJwtSecret({}),
      health: createHealthState('ready'),
    });
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await store?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('links with the forwarded host and port, as over loopback', async () => {
    const location = await new Promise<string | undefined>((resolve, reject) => {
      const req = request(
        {
          socketPath: socket,
          path: '/users/00000000-0000-4000-8000-000000000002/',
          headers: { host: '127.0.0.1', 'x-forwarded-host': '127.0.0.1:8080' },
        },
        (res) => {
          res.resume();
          resolve(res.headers.location);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(location).toBe('http://127.0.0.1:8080/users/00000000-0000-4000-8000-000000000002');
  });
});
