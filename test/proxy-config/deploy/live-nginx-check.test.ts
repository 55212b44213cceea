import { chmod, lstat, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
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
  const writeSpec = async (
    name: string,
    over: { pidFile?: string; keepalive?: number; port?: number; start?: string[]; ready?: string[] } = {},
  ) => {
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
          deploy: {
            start: over.start ?? hook('start'),
            stop: hook('stop'),
            ...(over.ready ? { ready: over.ready } : {}),
            watch: 1,
            max5xxIncrease: 0.05,
          },
        },
      },
      servers: [
        {
          names: ['localhost', '127.0.0.1'],
          listen: [{ address: '127.0.0.1', port: over.port ?? nginxPort }],
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
    // The plan, which changes nothing, says the same.
    const plan = await runCli(['deploy', 'plan', '--spec', specPath, '--target', target]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`refused now: ${line!.replace(/^proxyops: /, '')}`);

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

  /**
   * Applies `specPath` (whose pid file is `runtime/nginx.pid`) to `target` and starts an nginx of
   * its own on the target's current file (or, `pinned`, on the version file it names now).
   */
  const startApplied = async (specPath: string, target: string, runtime: string, pinned = false) => {
    const applied = await runCli(['config', 'apply', '--spec', specPath, '--target', target]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const current = join(target, 'current', 'nginx.conf');
    const own = {
      confPath: pinned ? await realpath(current) : current,
      prefix: runtime,
      startupErrorLog: join(runtime, 'logs', 'error.log'),
    };
    await startNginx(own);
    for (let i = 0; i < 500 && !(await readLiveMasterPid(join(runtime, 'nginx.pid'))); i++) await sleep(20);
    return {
      master: (await readLiveMasterPid(join(runtime, 'nginx.pid')))!,
      configFile: own.confPath,
      stop: () => signalNginx(own, 'stop'),
    };
  };

  /** A runtime directory for an nginx of its own, and its pid file. */
  const runtimeDir = async (name: string) => {
    const runtime = join(root, name);
    await mkdir(join(runtime, 'logs'), { recursive: true, mode: 0o755 });
    return { runtime, pidFile: join(runtime, 'nginx.pid') };
  };

  it('config apply to a master started on a version file itself, not through current: refused before signalling, exit 2, nothing swapped, nginx untouched', async () => {
    const target = join(root, 'pinned');
    const { runtime, pidFile: own } = await runtimeDir('pinned-runtime');
    // Its own port, so it runs beside the hand-written nginx.
    const port = await freePort();
    const first = await writeSpec('pinned-1', { pidFile: own, port });
    const nginxOwn = await startApplied(first, target, runtime, true);
    const version = dirname(nginxOwn.configFile);
    try {
      const before = await nginxPids(own);
      const second = await writeSpec('pinned-2', { pidFile: own, port, keepalive: 7 });
      const run = await runCli(['config', 'apply', '--spec', second, '--target', target]);
      expect(run.exitCode, run.stdout + run.stderr).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines, run.stderr).toHaveLength(1);
      // The -c is compared as the path nginx opens again on SIGHUP: the version file, whatever current says.
      expect(lines[0]).toContain(
        `${own} names nginx master ${nginxOwn.master}, which runs -c ${join(version, 'nginx.conf')}, not ${join(target, 'current', 'nginx.conf')}: a reload would not load this config, so nothing was swapped or signalled`,
      );
      expect(run.stdout).not.toMatch(/reloaded|swapped:/);
      expect(await nginxPids(own)).toEqual(before);
      expect(await realpath(join(target, 'current'))).toBe(version);
    } finally {
      await nginxOwn.stop();
    }
  }, 60_000);

  it('nginx started with a relative prefix from another directory (cd DIR && nginx -p . -c TARGET-relative): config apply and the deploy check read its files', async () => {
    const site = join(root, 'relative-site');
    const target = join(site, 'conf');
    const { runtime, pidFile: own } = await runtimeDir('relative-site/run');
    const port = await freePort();
    const first = await writeSpec('relative-1', { pidFile: own, port });
    const applied = await runCli(['config', 'apply', '--spec', first, '--target', target]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    // The master's -p and -c are relative to the directory it was started from, not to this test's.
    expect(process.cwd()).not.toBe(site);
    const started = await execa(
      'nginx',
      ['-p', '.', '-c', 'conf/current/nginx.conf', '-e', join(runtime, 'logs', 'error.log')],
      { cwd: site, reject: false, all: true },
    );
    expect(started.exitCode, started.all).toBe(0);
    for (let i = 0; i < 500 && !(await readLiveMasterPid(own)); i++) await sleep(20);
    const master = (await readLiveMasterPid(own))!;
    try {
      const plan = await runCli(['deploy', 'plan', '--spec', first, '--target', target, '--json']);
      expect(plan.exitCode, plan.stderr).toBe(0);
      const planned = JSON.parse(plan.stdout.trim().split('\n').at(-1)!) as { refused?: string };
      expect(planned.refused).toBeUndefined();
      const before = await nginxPids(own);
      const second = await writeSpec('relative-2', { pidFile: own, port, keepalive: 7 });
      const run = await runCli(['config', 'apply', '--spec', second, '--target', target]);
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain('applied v0002');
      // The same master reloaded: new workers, and it still serves.
      const after = await nginxPids(own);
      expect(after[0]).toBe(master);
      expect(after.slice(1).some((pid) => before.includes(pid))).toBe(false);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    } finally {
      process.kill(master, 'SIGTERM');
      for (let i = 0; i < 500 && (await readLiveMasterPid(own)); i++) await sleep(20);
    }
  }, 90_000);

  it('a Debian-style host: nginx started on a link made before the first apply, now dangling to TARGET/current/nginx.conf: the first config apply reloads it onto the target (a master on another config stays refused: the fresh-target test above)', async () => {
    const host = join(root, 'debian');
    const target = join(host, 'target');
    const { runtime, pidFile: own } = await runtimeDir('debian/run');
    const port = await freePort();
    const link = join(host, 'nginx.conf');
    const hand = join(host, 'hand.conf');
    // The nginx that ran before proxyops: a hand-written config answering on the spec's port.
    await writeFile(
      hand,
      [
        `pid ${own};`,
        `error_log ${join(runtime, 'logs', 'error.log')};`,
        'events {}',
        `http { server { listen 127.0.0.1:${port}; return 200 "hand-written\\n"; } }`,
        '',
      ].join('\n'),
    );
    await symlink(hand, link);
    const own_ = { confPath: link, prefix: runtime, startupErrorLog: join(runtime, 'logs', 'error.log') };
    await startNginx(own_);
    for (let i = 0; i < 500 && !(await readLiveMasterPid(own)); i++) await sleep(20);
    const master = (await readLiveMasterPid(own))!;
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('hand-written\n');
      // Set up for proxyops before its first apply: the link now names a file that does not exist yet.
      await rm(link);
      await symlink(join(target, 'current', 'nginx.conf'), link);
      const spec = await writeSpec('debian', { pidFile: own, port });
      const run = await runCli(['config', 'apply', '--spec', spec, '--target', target]);
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain('applied v0001');
      // The same master now serves the spec: the app behind the upstream answers, not the hand-written text.
      expect(await readLiveMasterPid(own)).toBe(master);
      const served = await fetch(`http://127.0.0.1:${port}/`);
      expect(served.status).toBe(200);
      expect(await served.text()).not.toBe('hand-written\n');
    } finally {
      // By pid: `nginx -s` would read the link, which dangles when the apply was refused.
      process.kill(master, 'SIGTERM');
      for (let i = 0; i < 500 && (await readLiveMasterPid(own)); i++) await sleep(20);
    }
  }, 90_000);

  it('the same look follows every switch: the live upstream edited by hand during the round (the new address dropped) puts the round back, exit 1, the old instance serving, and the look after the switch back says the rollback is not confirmed', async () => {
    const target = join(root, 'edited');
    const { runtime, pidFile: own } = await runtimeDir('edited-runtime');
    const port = await freePort();
    const [serving, idle] = pairs[0]!;
    // Someone edits the live config as the new instance starts: its address leaves the upstream.
    const start = [
      'sh',
      '-c',
      `echo "$*" >> ${hookRecord}; supervisorctl -c ${supervisor.conf} start "app-$1" && sed -i "/127.0.0.1:$1 /d" ${join(target, 'current', 'nginx.conf')} && kill -HUP "$(cat ${own})"`,
      'hook',
      '{port}',
    ];
    const specPath = await writeSpec('edited', { pidFile: own, port, start });
    const nginxOwn = await startApplied(specPath, target, runtime);
    try {
      const before = await supervisor.pidOf(`app-${serving}`);
      const run = await runCli(['deploy', '--spec', specPath, '--target', target, '--json']);
      expect(run.exitCode, run.stdout + run.stderr).toBe(1);
      const abort = run.events.find((e) => e.type === 'abort')!;
      expect(String(abort.reason)).toMatch(
        new RegExp(
          `^after the add step, upstream app of nginx master ${nginxOwn.master} .* \\(not listed there: 127\\.0\\.0\\.1:${idle}\\); `,
        ),
      );
      // Putting traffic back is looked at too: the hand edit still leaves the idle address out, so
      // the rollback is not claimed as confirmed.
      expect(String(abort.reason)).toMatch(
        new RegExp(
          `; ROLLBACK NOT CONFIRMED: after traffic was switched back, upstream app of nginx master ${nginxOwn.master} .* \\(not listed there: 127\\.0\\.0\\.1:${idle}\\); check nginx by hand$`,
        ),
      );
      expect(abort.rolledBack).toBe(false);
      // The old instance was never told to stop and serves; nothing proxyops started is left.
      expect(await supervisor.pidOf(`app-${serving}`)).toBe(before);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
      expect(
        run.events.some((e) => e.type === 'step-start' && (e.step as { kind: string }).kind === 'signal'),
      ).toBe(false);
    } finally {
      await nginxOwn.stop();
    }
  }, 90_000);

  it('a hand edit of the live upstream between the switch and a watch rollback (the new address dropped): the look after add passes, the watch rolls back, and the look after the switch back says ROLLBACK NOT CONFIRMED, rolledBack false, exit 1', async () => {
    const target = join(root, 'edited-in-watch');
    const { runtime, pidFile: own } = await runtimeDir('edited-in-watch-runtime');
    const port = await freePort();
    const [serving, idle] = pairs[0]!;
    const conf = join(target, 'current', 'nginx.conf');
    const checked = join(root, `ready-checked-${idle}`);
    // The ready hook is the one hook that runs during the watch as well as before the switch. It
    // stands for two things a real site can meet at once: the new instance stops being ready, and
    // someone edits the live config by hand (its address out of the upstream) after the look that
    // followed the add. Its first run that finds the instance ready marks it; every later run (the
    // watch's) is that edit and a failed check.
    const ready = [
      'sh',
      '-c',
      `if [ -e ${checked} ]; then sed -i "/127.0.0.1:$1 /d" ${conf} && kill -HUP "$(cat ${own})"; exit 1; fi; curl -fsS -o /dev/null "http://127.0.0.1:$1/health/ready" && touch ${checked}`,
      'ready',
      '{port}',
    ];
    const specPath = await writeSpec('edited-in-watch', { pidFile: own, port, ready });
    const nginxOwn = await startApplied(specPath, target, runtime);
    try {
      const before = await supervisor.pidOf(`app-${serving}`);
      const run = await runCli(['deploy', '--spec', specPath, '--target', target, '--json']);
      expect(run.exitCode, run.stdout + run.stderr).toBe(1);
      // The switch was looked at and found as planned: the add step is done, the watch began.
      const step = (kind: string) =>
        run.events.find(
          (e) => e.type === 'step-start' && (e.step as { kind: string; round: number }).kind === kind,
        )?.step as { index: number } | undefined;
      const add = step('add')!;
      expect(
        run.events.some((e) => e.type === 'step-done' && (e.step as { index: number }).index === add.index),
      ).toBe(true);
      const abort = run.events.find((e) => e.type === 'abort')!;
      expect(abort.step).toBe(step('watch')!.index);
      const reason = String(abort.reason);
      expect(reason).toMatch(
        new RegExp(
          `^the new instance 127\\.0\\.0\\.1:${idle} failed \\d+ readiness checks in a row during the watch: rolled back; `,
        ),
      );
      // The rollback ran (the new instance stopped), but nginx no longer lists what it put back.
      expect(reason).toMatch(
        new RegExp(
          `; ROLLBACK NOT CONFIRMED: after traffic was switched back, upstream app of nginx master ${nginxOwn.master} .* \\(not listed there: 127\\.0\\.0\\.1:${idle}\\); check nginx by hand$`,
        ),
      );
      expect(abort.rolledBack).toBe(false);
      expect(run.events.at(-1)).toMatchObject({ type: 'done', outcome: 'aborted' });
      // The new instance was stopped, the old one never told to stop and serving.
      expect((await supervisor.ctl('status', `app-${idle}`)).stdout).not.toMatch(/RUNNING/);
      expect(await supervisor.pidOf(`app-${serving}`)).toBe(before);
      expect(
        run.events.some((e) => e.type === 'step-start' && (e.step as { kind: string }).kind === 'signal'),
      ).toBe(false);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    } finally {
      await nginxOwn.stop();
    }
  }, 90_000);
});
