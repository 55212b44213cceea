import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_DEFAULTS } from '../../api/defaults.js';
import { startApiServer, type RunningServer } from '../../api/server.js';
import { relocateRuntimePaths } from '../../proxy-config/core/spec/relocate-runtime-paths.js';
import { readLiveMasterPid } from '../../proxy-config/shell/nginx-master.js';
import { signalNginx, startNginx, type NginxTarget } from '../../proxy-config/shell/nginx-process.js';
import { readSpecFile } from '../../proxy-config/shell/read-spec-file.js';
import { createTempPrefix } from '../../proxy-config/shell/temp-prefix.js';
import { writeRenderedFiles } from '../../proxy-config/shell/write-rendered-files.js';
import { renderSpec } from '../../proxy-config/render-config.js';
import { freePort } from '../support/ports.js';

const EXAMPLE = join(import.meta.dirname, '../../proxy-config/examples/api-front.yaml');

describe('examples/api-front.yaml in front of the real proxyops API', () => {
  let prefix: string;
  let api: RunningServer;
  let nginx: NginxTarget;
  let port: number;

  beforeAll(async () => {
    const apiPort = await freePort();
    port = await freePort();
    api = await startApiServer({
      config: { ...API_DEFAULTS, port: apiPort },
      logger: pino({ level: 'silent' }),
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
});
