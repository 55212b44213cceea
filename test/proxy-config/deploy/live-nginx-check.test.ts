import { chmod, lstat, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readChildPids, readLiveMasterPid } from '../../../proxy-config/shell/nginx/nginx-master.js';
import { signalNginx, startNginx } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { waitUntilReady } from '../../../proxy-config/shell/process/wait-until-ready.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startSupervisord, sv, type Supervisord } from '../../support/supervisord.js';
import { startLoad } from './load.js';
import { runCli } from './stack-harness.js';

const APP = join(import.meta.dirname, 'fixtures', 'tiny-app.mjs');

/** `count` distinct free ports. */
async function ports(count: number): Promise<number[]> {
  const found = new Set<number>();
  while (found.size < count) found.add(await freePort());
  return [...found];
}

/** nginx's master and its workers: a reload replaces the workers. */
async function nginxPids(pidFile: string): Promise<number[]> {
  const master = (await readLiveMasterPid(pidFile))!;
  return [master, ...(await readChildPids(master))];
}

describe('the live nginx is looked at before acting: a hand-written nginx sharing the pid file', () => {
  let root: string;
  let nginx: LiveNginx;
  let supervisor: Supervisord;
  let specPath: string;
  let hookRecord: string;
  let nginxPort: number;
  /** The blue/green pairs [serving, idle] the spec declares. */
  let pairs: Array<[number, number]>;
  let pidFile: string;
  const handConfig = () => readFile(nginx.target.confPath, 'utf8');

  /** A spec of the same site: blue/green pairs on 127.0.0.1, supervisord's programs as the hooks. */
  const writeSpec = async (name: string, over: { pidFile?: string; keepalive?: number } = {}) => {
    const hook = (action: string) => [
      'sh',
      '-c',
      `echo "$*" >> ${hookRecord}; exec supervisorctl -c ${supervisor.conf} "$@"`,
      'hook',
      action,
      'app-{port}',
    ];
    const spec = {
      version: 1,
      paths: { pidFile: over.pidFile ?? pidFile, tempDir: join(root, 'temp') },
      workers: { processes: 1 },
      accessLog: { path: nginx.accessLog, buffer: null, flush: null },
      errorLog: { path: nginx.errorLog },
      upstreams: {
        app: {
          servers: pairs.map(([port, alternate]) => ({
            host: '127.0.0.1',
            port,
            alternate,
            maxFails: 1,
            failTimeout: 1,
          })),
          ...(over.keepalive === undefined ? {} : { keepalive: over.keepalive }),
          healthCheck: { interval: 0.5, failureThreshold: 2, margin: 0.5 },
          deploy: { start: hook('start'), stop: hook('stop'), watch: 1, max5xxIncrease: 0.05 },
        },
      },
      servers: [
        {
          names: ['localhost', '127.0.0.1'],
          listen: [{ address: '127.0.0.1', port: nginxPort }],
          routes: [{ path: '/', upstream: 'app' }],
        },
      ],
    };
    const path = join(root, `${name}.json`);
    await writeFile(path, `${JSON.stringify(spec, null, 2)}\n`);
    return path;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-live-check-'));
    await chmod(root, 0o755);
    await mkdir(join(root, 'temp'), { mode: 0o755 });
    hookRecord = join(root, 'hook-runs.txt');
    const [a1, b1, a2, b2, port] = await ports(5);
    pairs = [
      [a1!, b1!],
      [a2!, b2!],
    ];
    nginxPort = port!;
    supervisor = await startSupervisord(
      root,
      Object.fromEntries(
        pairs
          .flat()
          .map((p) => [
            `app-${p}`,
            [
              `command=${sv(process.execPath)} ${sv(APP)} ${p}`,
              'startsecs=1',
              'stopsignal=TERM',
              `stdout_logfile=${sv(join(root, `app-${p}.log`))}`,
              'redirect_stderr=true',
            ],
          ]),
      ),
    );
    for (const [serving] of pairs) {
      const started = await supervisor.ctl('start', `app-${serving}`);
      expect(started.exitCode, started.stdout + started.stderr).toBe(0);
    }
    // Written by hand, as an nginx someone set up before proxyops: the pairs' idle addresses are not listed.
    nginx = await startLiveNginx(
      [
        'upstream app {',
        ...pairs.map(([serving]) => `  server 127.0.0.1:${serving} max_fails=1 fail_timeout=1s;`),
        '}',
        `server { listen 127.0.0.1:${nginxPort}; location / { proxy_pass http://app; } }`,
      ].join('\n'),
    );
    pidFile = join(nginx.prefix, 'nginx.pid');
    specPath = await writeSpec('spec');
    const through = await waitUntilReady(`http://127.0.0.1:${nginxPort}/`, { boundMs: 30_000, pollMs: 50 });
    expect(through.ready).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await supervisor?.stop();
    await nginx?.stop();
    await rm(root, { recursive: true, force: true });
  }, 60_000);

  it('deploy to a --target never applied, with alternates the live nginx does not list: exit 2, one line naming both pictures and the fix, no instance started or stopped, the site serving throughout', async () => {
    const target = join(root, 'never-applied');
    const instancePids = await Promise.all(pairs.map(([serving]) => supervisor.pidOf(`app-${serving}`)));
    expect(instancePids.every((pid) => pid > 0)).toBe(true);
    const nginxBefore = await nginxPids(pidFile);
    const configBefore = await handConfig();
    const load = startLoad(`http://127.0.0.1:${nginxPort}/`, {}, { rate: 100 });
    await sleep(300);
    const run = await runCli(['deploy', '--spec', specPath, '--target', target]);
    await sleep(300);
    const result = await load.stop();

    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    const [line] = lines;
    const master = nginxBefore[0]!;
    // Both pictures: what nginx runs (its master, its file, its servers) and what the plan assumes.
    expect(line).toContain(
      `${target} holds no applied config (no current), while nginx master ${master} (-c ${nginx.target.confPath}) runs its own`,
    );
    const [a1, b1] = pairs[0]!;
    const [a2, b2] = pairs[1]!;
    expect(line).toContain(
      `upstream app of nginx master ${master} (-c ${nginx.target.confPath}) lists 127.0.0.1:${a1}, 127.0.0.1:${a2}`,
    );
    expect(line).toContain(`not listed there: 127.0.0.1:${b1}, 127.0.0.1:${b2}`);
    expect(line).toContain('nothing started or stopped');
    expect(line).toContain(`proxyops config apply --spec ${specPath} --target ${target}`);
    expect(run.stdout).not.toMatch(/deployed|→/);

    // Nothing started or stopped: the same instance processes, the idle addresses idle, no hook run.
    expect(await Promise.all(pairs.map(([serving]) => supervisor.pidOf(`app-${serving}`)))).toEqual(
      instancePids,
    );
    for (const [, idle] of pairs)
      expect((await supervisor.ctl('status', `app-${idle}`)).stdout).not.toMatch(/RUNNING/);
    expect(await readFile(hookRecord, 'utf8').catch(() => '')).toBe('');
    expect(await nginxPids(pidFile)).toEqual(nginxBefore);
    expect(await handConfig()).toBe(configBefore);
    // The site served every request meanwhile.
    expect(result.total).toBeGreaterThan(20);
    expect(result, JSON.stringify(result)).toMatchObject({ errors: 0, non2xx: 0 });
  }, 120_000);

  it("config apply to a fresh target whose pid file is the hand-written master's: refused before signalling, exit 2, nothing swapped, nginx untouched", async () => {
    const target = join(root, 'fresh-target');
    const nginxBefore = await nginxPids(pidFile);
    const configBefore = await handConfig();
    const run = await runCli(['config', 'apply', '--spec', specPath, '--target', target]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toContain(
      `${pidFile} names nginx master ${nginxBefore[0]}, which runs -c ${nginx.target.confPath}, and ${target} holds no applied config yet: a reload would not load this config, so nothing was swapped or signalled`,
    );
    expect(run.stdout).not.toMatch(/reloaded|swapped:/);
    // Not signalled (the same workers), not swapped (no current), the hand-written config as it was.
    expect(await nginxPids(pidFile)).toEqual(nginxBefore);
    await expect(lstat(join(target, 'current'))).rejects.toThrow(/ENOENT/);
    expect(await handConfig()).toBe(configBefore);
    expect((await fetch(`http://127.0.0.1:${nginxPort}/`)).status).toBe(200);
  }, 60_000);

  it('config apply to a master started on a version file itself, not through current: says truthfully that nginx did not load the new version, and puts the link back', async () => {
    const target = join(root, 'pinned');
    const runtime = join(root, 'pinned-runtime');
    await mkdir(join(runtime, 'logs'), { recursive: true, mode: 0o755 });
    const ownPidFile = join(runtime, 'nginx.pid');
    const first = await writeSpec('pinned-1', { pidFile: ownPidFile });
    // Its own port, so it runs beside the hand-written nginx.
    const spec = JSON.parse(await readFile(first, 'utf8')) as {
      servers: Array<{ listen: Array<{ port: number }> }>;
    };
    spec.servers[0]!.listen[0]!.port = await freePort();
    await writeFile(first, JSON.stringify(spec));
    expect((await runCli(['config', 'apply', '--spec', first, '--target', target])).exitCode).toBe(0);
    const version = await realpath(join(target, 'current'));
    await startNginx({
      confPath: join(version, 'nginx.conf'),
      prefix: runtime,
      startupErrorLog: join(runtime, 'logs', 'error.log'),
    });
    try {
      for (let i = 0; i < 500 && !(await readLiveMasterPid(ownPidFile)); i++) await sleep(20);
      const master = (await readLiveMasterPid(ownPidFile))!;
      const second = join(root, 'pinned-2.json');
      await writeFile(
        second,
        JSON.stringify({
          ...spec,
          upstreams: {
            app: { ...(spec as unknown as { upstreams: { app: object } }).upstreams.app, keepalive: 7 },
          },
        }),
      );
      const run = await runCli(['config', 'apply', '--spec', second, '--target', target]);
      expect(run.exitCode, run.stdout + run.stderr).toBe(1);
      expect(run.stderr).toContain(
        `nginx master ${master} reloaded ${join(version, 'nginx.conf')} (its -c ${join(version, 'nginx.conf')}), not ${join(target, 'current', 'nginx.conf')}: the new version is not what it runs`,
      );
      expect(run.stdout).not.toMatch(/^reloaded/m);
      // The target names again what nginx runs.
      expect(await realpath(join(target, 'current'))).toBe(version);
    } finally {
      await signalNginx({ confPath: join(version, 'nginx.conf'), prefix: runtime }, 'stop');
    }
  }, 60_000);
});
