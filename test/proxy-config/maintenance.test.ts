import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLiveMasterPid } from '../../proxy-config/shell/nginx/nginx-master.js';
import { signalNginx, type NginxTarget } from '../../proxy-config/shell/nginx/nginx-process.js';
import { processFamily } from '../../proxy-config/shell/process/proc-process-tree.js';
import { getOnce, startAnswerLoad } from '../support/answer-load.js';
import { startAppliedNginx } from '../support/live-nginx.js';
import { freePort } from '../support/ports.js';
import { runCli } from '../support/run-cli.js';
import { startUpstreamApp, type UpstreamApp } from '../support/upstream-app.js';

describe('proxyops maintenance through a live nginx', () => {
  let root: string;
  let runtime: string;
  let app: UpstreamApp;
  let port: number;
  let nginx: NginxTarget;
  let spec: Record<string, unknown>;
  const target = () => join(root, 'conf');
  const cli = (...args: string[]) =>
    runCli([
      'maintenance',
      ...args,
      '--spec',
      join(root, 'spec.json'),
      '--target',
      target(),
      '--upstream',
      'app',
    ]);
  const family = async () => {
    const master = await readLiveMasterPid(join(runtime, 'nginx.pid'));
    return { master, all: (await processFamily(master!)).map((p) => p.pid).sort() };
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-maintenance-'));
    await chmod(root, 0o755);
    runtime = join(root, 'run');
    await mkdir(join(runtime, 'logs'), { recursive: true, mode: 0o755 });
    await mkdir(join(runtime, 'temp'), { recursive: true, mode: 0o755 });
    app = await startUpstreamApp();
    port = await freePort();
    spec = {
      version: 1,
      layerName: 'edge',
      paths: {
        pidFile: join(runtime, 'nginx.pid'),
        tempDir: join(runtime, 'temp'),
        maintenanceDir: join(root, 'maintenance'),
      },
      workers: { processes: 2, connections: 256, rlimitNofile: 1024 },
      accessLog: { path: join(runtime, 'logs', 'access.log'), buffer: null },
      errorLog: { path: join(runtime, 'logs', 'error.log') },
      upstreams: { app: { servers: [{ host: '127.0.0.1', port: app.port }], keepalive: 4 } },
      servers: [
        {
          names: ['localhost'],
          listen: [{ address: '127.0.0.1', port, defaultServer: true }],
          routes: [{ path: '/', upstream: 'app' }],
        },
      ],
    };
    nginx = await startAppliedNginx(root, runtime, spec);
  });

  afterAll(async () => {
    await signalNginx(nginx, 'stop').catch(() => undefined);
    await app?.close();
    for (
      let i = 0;
      i < 250 && (await readLiveMasterPid(join(runtime, 'nginx.pid')).catch(() => undefined));
      i++
    )
      await sleep(20);
    await rm(root, { recursive: true, force: true });
  });

  it('on: 503 problem+json with Retry-After and the request id under load, health still 200; off: no failed request; no reload', async () => {
    const before = await family();
    const load = startAnswerLoad(port, 6);
    await sleep(400);
    const on = await cli('on', '--retry-after', '120');
    expect(on).toMatchObject({ code: 0, stderr: '' });
    expect(on.stdout).toContain(
      'maintenance on for upstream app: nginx answers 503 (Retry-After: 120), /health/* still reach the instances; no reload',
    );
    const onAt = performance.now();
    await sleep(600);
    const health = await getOnce(port, '/health/ready');
    const page = await getOnce(port, '/orders', {
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    });
    const offStart = performance.now();
    const off = await cli('off');
    expect(off).toMatchObject({ code: 0, stderr: '' });
    const offAt = performance.now();
    await sleep(600);
    const { answers, errors } = await load.stop();

    expect(errors).toEqual([]);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200, 503]));
    const during = answers.filter((a) => a.sentAt > onAt && a.endedAt < offStart);
    const after = answers.filter((a) => a.sentAt > offAt);
    expect(during.length).toBeGreaterThan(20);
    expect(after.length).toBeGreaterThan(20);
    for (const a of during) {
      expect(a.status).toBe(503);
      expect(a.headers['content-type']).toBe('application/problem+json');
      expect(a.headers['retry-after']).toBe('120');
      expect(a.headers['cache-control']).toBe('no-store');
      const problem = JSON.parse(a.body) as Record<string, unknown>;
      expect(problem).toMatchObject({
        status: 503,
        code: 'MAINTENANCE',
        layer: 'edge',
        requestId: a.headers['x-request-id'],
      });
      expect(problem.instance).toMatch(/^\/items\/\d+$/);
    }
    expect(after.every((a) => a.status === 200)).toBe(true);
    // A request answered 503 never reached the app; the health check did.
    const reached = app.seen.filter((s) => s.url.startsWith('/items/')).length;
    expect(reached).toBe(answers.filter((a) => a.status === 200).length);
    expect(app.seen.some((s) => s.url === '/health/ready')).toBe(true);
    expect(health.status).toBe(200);
    expect(page.status).toBe(503);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['retry-after']).toBe('120');
    expect(page.body).toContain(`Request id: ${page.headers['x-request-id']}`);
    expect(await family()).toEqual(before);
    expect(await readFile(join(runtime, 'logs', 'error.log'), 'utf8')).not.toMatch(/\[(crit|alert|emerg)\]/);
  });

  it('on again changes Retry-After at once, off twice says it was not on, still without a reload', async () => {
    const before = await family();
    expect((await cli('on', '--retry-after', '30')).code).toBe(0);
    expect((await getOnce(port, '/x')).headers['retry-after']).toBe('30');
    expect((await cli('on', '--retry-after', '7')).code).toBe(0);
    expect((await getOnce(port, '/x')).headers['retry-after']).toBe('7');
    expect((await cli('off')).code).toBe(0);
    const again = await cli('off', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ upstream: 'app', state: 'off', changed: false });
    expect((await getOnce(port, '/x')).status).toBe(200);
    expect(await family()).toEqual(before);
  });

  it('bad input is one line and exit 2; a config that does not test the flag is refused', async () => {
    const unknown = await runCli([
      'maintenance',
      'on',
      '--spec',
      join(root, 'spec.json'),
      '--target',
      target(),
      '--upstream',
      'nope',
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^proxyops: --upstream nope: no such upstream \(known: app\)\n$/);
    expect((await cli('maybe')).code).toBe(2);
    expect((await cli('on', '--retry-after', 'soon')).code).toBe(2);
    const { writeFile } = await import('node:fs/promises');
    const other = join(root, 'other-spec.json');
    await writeFile(
      other,
      JSON.stringify({
        ...spec,
        paths: { ...(spec.paths as object), maintenanceDir: join(root, 'elsewhere') },
      }),
    );
    const stale = await runCli([
      'maintenance',
      'on',
      '--spec',
      other,
      '--target',
      target(),
      '--upstream',
      'app',
    ]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('does not test');
    expect((await getOnce(port, '/x')).status).toBe(200);
  });
});
