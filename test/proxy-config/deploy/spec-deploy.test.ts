import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLiveMasterPid } from '../../../proxy-config/shell/nginx/nginx-master.js';
import { signalNginx, startNginx } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { waitUntilReady } from '../../../proxy-config/shell/process/wait-until-ready.js';
import { freePort } from '../../support/ports.js';
import { startLoad } from './load.js';
import { isAlive, runCli, singleAppSpec } from './stack-harness.js';

const APP = join(import.meta.dirname, 'fixtures', 'tiny-app.mjs');

/** Waits (30 s at most: a node or nginx start on a loaded machine can take seconds) until `url` answers 200. */
async function waitFor(url: string): Promise<void> {
  const { ready, lastStatus } = await waitUntilReady(url, { boundMs: 30_000, pollMs: 50 });
  if (!ready) throw new Error(`${url} never answered 200 (last status ${lastStatus})`);
}

describe('proxyops deploy --spec: an upstream whose instances proxyops did not start', () => {
  let root: string;
  let target: string;
  let specPath: string;
  let nginxPort: number;
  const apps: ChildProcess[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-spec-deploy-'));
    await chmod(root, 0o755);
    target = join(root, 'config');
    await mkdir(join(root, 'logs'), { mode: 0o755 });
    await mkdir(join(root, 'temp'), { mode: 0o755 });
    nginxPort = await freePort();
    const appPort = await freePort();
    // Started by hand, as a service manager would: the deploy finds its pid by its listening socket.
    apps.push(
      spawn('node', [APP, String(appPort)], {
        stdio: 'ignore',
        env: { ...process.env, PROXYOPS_DRAIN_MARGIN_MS: '300' },
      }),
    );
    await waitFor(`http://127.0.0.1:${appPort}/health/ready`);
    specPath = join(root, 'spec.yaml');
    await writeFile(specPath, singleAppSpec({ root, app: APP, appPort, nginxPort }));
    const applied = await runCli(['config', 'apply', '--spec', specPath, '--target', target]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    await startNginx({
      confPath: join(target, 'current', 'nginx.conf'),
      prefix: root,
      startupErrorLog: join(root, 'logs', 'error.log'),
    });
    await waitFor(`http://127.0.0.1:${nginxPort}/`);
  }, 60_000);

  afterAll(async () => {
    const state = JSON.parse(
      await readFile(join(target, 'instances.json'), 'utf8').catch(() => '{"upstreams":{}}'),
    ) as {
      upstreams: Record<string, Array<{ pid?: number }>>;
    };
    for (const instance of Object.values(state.upstreams).flat())
      if (instance.pid) process.kill(instance.pid, 'SIGKILL');
    for (const app of apps) app.kill('SIGKILL');
    if (await readLiveMasterPid(join(root, 'nginx.pid')))
      await signalNginx({ confPath: join(target, 'current', 'nginx.conf'), prefix: root }, 'stop');
    await rm(root, { recursive: true, force: true });
  });

  it('replaces it under load, stops it by the pid found on its port, and records the new instance', async () => {
    const oldPid = apps[0]!.pid!;
    const load = startLoad(`http://127.0.0.1:${nginxPort}/`, {});
    const run = await runCli(['deploy', '--spec', specPath, '--target', target]);
    const result = await load.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`sent SIGQUIT to pid ${oldPid}`);
    expect(run.stdout).toMatch(/deployed in .*: 127\.0\.0\.1:\d+/);
    expect(result).toMatchObject({ errors: 0, non2xx: 0 });
    expect(await isAlive(oldPid)).toBe(false);
    const state = JSON.parse(await readFile(join(target, 'instances.json'), 'utf8')) as {
      upstreams: { app: Array<{ port: number; pid: number; inUpstream: boolean }> };
    };
    expect(state.upstreams.app).toHaveLength(1);
    const [fresh] = state.upstreams.app;
    expect(fresh!.inUpstream).toBe(true);
    expect(await isAlive(fresh!.pid)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${nginxPort}/`)).status).toBe(200);
    expect(await readFile(join(target, 'current', 'nginx.conf'), 'utf8')).toContain(
      `127.0.0.1:${fresh!.port} `,
    );
  }, 60_000);
});
