import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DEFAULTS } from '../../api/defaults.js';
import { startApiServer, type RunningServer } from '../../api/server.js';
import { relocateRuntimePaths } from '../../proxy-config/core/spec/relocate-runtime-paths.js';
import { readLiveMasterPid } from '../../proxy-config/shell/nginx/nginx-master.js';
import { signalNginx, startNginx, type NginxTarget } from '../../proxy-config/shell/nginx/nginx-process.js';
import { readSpecFile } from '../../proxy-config/shell/read-spec-file.js';
import { createTempPrefix } from '../../proxy-config/shell/nginx/temp-prefix.js';
import { writeRenderedFiles } from '../../proxy-config/shell/nginx/write-rendered-files.js';
import { renderSpec } from '../../proxy-config/config/render-config.js';
import { captureLogs } from '../api/support/harness.js';
import { freePort } from '../support/ports.js';

const EXAMPLE = join(import.meta.dirname, '../../proxy-config/examples/api-front.yaml');

describe('examples/api-front.yaml in front of the real proxyops API', () => {
  let prefix: string;
  let api: RunningServer;
  let nginx: NginxTarget;
  let port: number;
  const { logger, logLines } = captureLogs();
  /** The rate limit behind nginx: small, to see whose budget a request counts against. */
  const RATE_LIMIT = 4;

  beforeAll(async () => {
    const apiPort = await freePort();
    port = await freePort();
    api = await startApiServer({
      // The shipped trust setting (loopback, where nginx connects from).
      config: { ...API_DEFAULTS, port: apiPort, rateLimitMax: RATE_LIMIT, rateLimitWindowMs: 60_000 },
      logger,
      signals: [],
    });
    prefix = (await createTempPrefix('api-front')).dir;
    // The example as shipped, moved onto loopback ports and a temporary prefix.
    const spec = relocateRuntimePaths(await readSpecFile(EXAMPLE), prefix);
    spec.upstreams.api!.servers[0]!.port = apiPort;
    spec.servers[0]!.listen = [{ address: '127.0.0.1', port, tls: false, defaultServer: true }];
    spec.workers.processes = 1;
    await writeRenderedFiles(join(prefix, 'conf'), await renderSpec(spec));
    nginx = {
      confPath: join(prefix, 'conf', 'nginx.conf'),
      prefix,
      startupErrorLog: join(prefix, 'logs', 'error.log'),
    };
    await startNginx(nginx);
  });

  afterAll(async () => {
    if (nginx) await signalNginx(nginx, 'stop').catch(() => undefined);
    for (let i = 0; i < 100 && (await readLiveMasterPid(join(prefix, 'nginx.pid'))); i++) await sleep(20);
    await api?.shutdown('test over', false);
    await rm(prefix, { recursive: true, force: true });
  });

  it('answers the health endpoints through nginx, with one request id shared by both layers', async () => {
    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status, { timeout: 20_000 })
      .toBe(200);
    const live = await fetch(`http://127.0.0.1:${port}/health/live`);
    expect(live.status).toBe(200);
    expect(live.headers.get('x-served-by')).toBe('proxyops-nginx');
    const id = live.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f]{32}$/);

    const given = await fetch(`http://127.0.0.1:${port}/health/live`, {
      headers: { 'x-request-id': 'join-me-1' },
    });
    expect(given.headers.get('x-request-id')).toBe('join-me-1');
  });

  it('refuses bodies over the API limit at the proxy already (256k)', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(300 * 1024),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('x-served-by')).toBe('proxyops-nginx');
  });

  it('a forged X-Forwarded-For through nginx does not buy a fresh rate-limit budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT + 3; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/orders`, {
        headers: { 'x-forwarded-for': `198.51.100.${i + 1}, 10.0.0.${i + 1}` },
      });
      statuses.push(res.status);
    }
    // 401 (no token) within the budget of the address nginx saw, then 429 whatever the client claims.
    expect(statuses).toEqual([...Array(RATE_LIMIT).fill(401), 429, 429, 429]);
  });

  it('one request id in both logs: a garbage or forged id is replaced, a well-formed one kept', async () => {
    const accessLog = () => readFile(join(prefix, 'logs', 'access.log'), 'utf8').catch(() => '');
    const apiIdOf = (path: string) =>
      logLines.find((line) => (line.req as { url?: string } | undefined)?.url === path)?.requestId;
    const cases = [
      { sent: 'has spaces and "quotes"', kept: false },
      { sent: 'x'.repeat(129), kept: false },
      { sent: 'forged\tline', kept: false },
      { sent: `join-${randomUUID()}`, kept: true },
    ];
    for (const [i, { sent, kept }] of cases.entries()) {
      const path = `/health/live?case=${i}-${randomUUID()}`;
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-request-id': sent } });
      expect(res.status).toBe(200);
      const id = res.headers.get('x-request-id');
      if (kept) expect(id).toBe(sent);
      else expect(id).toMatch(/^[0-9a-f]{32}$/);
      // The API logged the id nginx sent it, and nginx logged the same one for the same request.
      await expect.poll(() => apiIdOf(path), { timeout: 10_000 }).toBe(id);
      await expect
        .poll(async () => (await accessLog()).split('\n').find((line) => line.includes(path)) ?? '', {
          timeout: 15_000,
        })
        .toContain(`rid="${id}"`);
      if (!kept) expect(await accessLog()).not.toContain(`rid="${sent}"`);
    }
  }, 60_000);
});
