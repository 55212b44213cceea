import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../../proxy-config/core/spec/defaults.js';
import { readLiveMasterPid } from '../../../proxy-config/shell/nginx/nginx-master.js';
import { signalNginx, startNginx } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { pickFreePort } from '../../../proxy-config/shell/process/tcp-accepting.js';
import { waitUntilReady } from '../../../proxy-config/shell/process/wait-until-ready.js';
import { freePort } from '../../support/ports.js';
import { DATABASE_URL } from '../../support/services.js';
import { startLoad } from './load.js';
import { startNoRetryLoad, type NoRetryLoadResult } from './no-retry-load.js';
import { adminToken, CLI, runCli, SEED_USER } from './stack-harness.js';

const ALWAYS_5XX = join(import.meta.dirname, 'fixtures', 'always-5xx.mjs');
/** Two addresses standing for two hosts. */
const HOSTS = ['127.0.0.2', '127.0.0.3'] as const;

/** nginx's master and its workers: a reload replaces the workers. */
async function nginxPids(pidFile: string): Promise<number[]> {
  const master = Number((await readFile(pidFile, 'utf8')).trim());
  const { stdout } = await execa('ps', ['-o', 'pid=', '--ppid', String(master)]);
  return [master, ...stdout.split('\n').filter(Boolean).map(Number)].sort();
}

/** Two free ports of `host` (a blue/green pair). */
async function portPair(host: string): Promise<[number, number]> {
  for (;;) {
    const [a, b] = [await pickFreePort(host), await pickFreePort(host)];
    if (a !== b) return [a, b];
  }
}

/** A supervisord value: `%` starts its interpolation. */
const sv = (value: string) => value.replaceAll('%', '%%');

describe('deploy with lifecycle hooks through a real supervisord, on blue/green addresses of two hosts, with no nginx reload', () => {
  let root: string;
  let target: string;
  let nginxPort: number;
  let supervisorConf: string;
  let supervisord: ResultPromise;
  let auth: Record<string, string>;
  /** Every hook run, as the hooks themselves record it ("start app-HOST-PORT"). */
  let hookRecord: string;
  const pairs: Record<string, [number, number]> = {};
  const specs: Record<string, string> = {};
  const body = (n: number) =>
    JSON.stringify({ items: [{ productName: `hooks-load-${n}`, quantity: 1, unitPrice: 2.5 }] });

  const supervisorctl = (...args: string[]) =>
    execa('supervisorctl', ['-c', supervisorConf, ...args], { reject: false });
  /** A hook that records its own run, then calls supervisorctl. */
  const hook = (action: string, program: string) => [
    'sh',
    '-c',
    `echo "$*" >> ${hookRecord}; exec supervisorctl -c ${supervisorConf} "$@"`,
    'hook',
    action,
    program,
  ];
  const hookRuns = async () => (await readFile(hookRecord, 'utf8').catch(() => '')).split('\n');
  const serving = async (host: string, port: number) =>
    (await waitUntilReady(`http://${host}:${port}/health/ready`, { boundMs: 30_000, pollMs: 100 })).ready;

  /** The spec: both hosts' pairs, the hooks of `deploy` (the supervisord programs named `program-HOST-PORT`). */
  const writeSpec = async (
    name: string,
    deploy: Record<string, unknown>,
    server: Record<string, unknown> = { maxFails: 1, failTimeout: 1 },
    {
      hosts = HOSTS,
      keepalive,
      servingAt = (host) => pairs[host]![0],
    }: { hosts?: readonly string[]; keepalive?: number; servingAt?: (host: string) => number } = {},
  ) => {
    const path = join(root, `${name}.json`);
    const spec = {
      version: 1,
      paths: { pidFile: join(root, 'nginx.pid'), tempDir: join(root, 'temp') },
      workers: { processes: 2 },
      accessLog: { path: join(root, 'logs', 'access.log'), buffer: null, flush: null },
      errorLog: { path: join(root, 'logs', 'error.log') },
      upstreams: {
        app: {
          servers: hosts.map((host) => ({
            host,
            port: servingAt(host),
            alternate: pairs[host]!.find((p) => p !== servingAt(host)),
            ...server,
          })),
          keepaliveTimeout: 2,
          ...(keepalive === undefined ? {} : { keepalive }),
          healthCheck: { interval: 0.5, failureThreshold: 2, margin: 0.5 },
          deploy: { watch: 1.5, readyTimeout: 30, stopTimeout: 15, ...deploy },
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
    await writeFile(path, `${JSON.stringify(spec, null, 2)}\n`);
    specs[name] = path;
    return path;
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-hooks-deploy-'));
    await chmod(root, 0o755);
    target = join(root, 'config');
    hookRecord = join(root, 'hook-runs.txt');
    await mkdir(join(root, 'logs'), { mode: 0o755 });
    await mkdir(join(root, 'temp'), { mode: 0o755 });
    nginxPort = await freePort();
    for (const host of HOSTS) pairs[host] = await portPair(host);

    // One supervisord program per address: the API (hand-over drain), and a broken release beside it.
    supervisorConf = join(root, 'supervisord.conf');
    const programs = HOSTS.flatMap((host) =>
      pairs[host]!.flatMap((port) => [
        `[program:app-${host}-${port}]`,
        `command=${sv(process.execPath)} ${sv(CLI)} api --seed --host ${host} --port ${port} --drain hand-over`,
        `environment=DATABASE_URL="${sv(DATABASE_URL)}",PROXYOPS_RATE_LIMIT="10000000",PROXYOPS_PROXY_KEEP_ALIVE_MS="2000",PROXYOPS_HEALTH_INTERVAL_MS="500",PROXYOPS_HEALTH_THRESHOLD="2",PROXYOPS_DRAIN_MARGIN_MS="500"`,
        'autostart=false',
        'autorestart=false',
        'startsecs=1',
        'stopsignal=TERM',
        'stopwaitsecs=30',
        `stdout_logfile=${sv(join(root, 'logs', `app-${host}-${port}.log`))}`,
        'redirect_stderr=true',
        // Releases that fail a share of their requests (the API's test-only setting), draining as the API does.
        ...[1000, 50].flatMap((permille) => [
          `[program:bad${permille}-${host}-${port}]`,
          `command=${sv(process.execPath)} ${sv(CLI)} api --host ${host} --port ${port} --drain hand-over`,
          `environment=DATABASE_URL="${sv(DATABASE_URL)}",PROXYOPS_RATE_LIMIT="10000000",PROXYOPS_TEST_ERROR_PERMILLE="${permille}",PROXYOPS_PROXY_KEEP_ALIVE_MS="2000",PROXYOPS_HEALTH_INTERVAL_MS="500",PROXYOPS_HEALTH_THRESHOLD="2",PROXYOPS_DRAIN_MARGIN_MS="500"`,
          'autostart=false',
          'autorestart=false',
          'startsecs=1',
          'stopsignal=TERM',
          'stopwaitsecs=30',
          `stdout_logfile=${sv(join(root, 'logs', `bad${permille}-${host}-${port}.log`))}`,
          'redirect_stderr=true',
        ]),
        `[program:broken-${host}-${port}]`,
        `command=${sv(process.execPath)} ${sv(ALWAYS_5XX)} ${port} ${host}`,
        'autostart=false',
        'autorestart=false',
        'startsecs=1',
        `stdout_logfile=${sv(join(root, 'logs', `broken-${host}-${port}.log`))}`,
        'redirect_stderr=true',
      ]),
    );
    await writeFile(
      supervisorConf,
      [
        '[unix_http_server]',
        `file=${sv(join(root, 'supervisor.sock'))}`,
        'chmod=0700',
        '[supervisord]',
        `logfile=${sv(join(root, 'logs', 'supervisord.log'))}`,
        `pidfile=${sv(join(root, 'supervisord.pid'))}`,
        `childlogdir=${sv(join(root, 'logs'))}`,
        '[rpcinterface:supervisor]',
        'supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface',
        '[supervisorctl]',
        `serverurl=unix://${sv(join(root, 'supervisor.sock'))}`,
        ...programs,
        '',
      ].join('\n'),
    );
    supervisord = execa('supervisord', ['-n', '-c', supervisorConf], { reject: false });
    for (let tries = 0; !/^\d+$/.test((await supervisorctl('pid')).stdout); tries++) {
      if (tries > 200) throw new Error('supervisord did not come up');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The first instances, started as their owner would (one at a time: the first one migrates).
    for (const host of HOSTS) {
      const started = await supervisorctl('start', `app-${host}-${pairs[host]![0]}`);
      expect(started.exitCode, started.stdout + started.stderr).toBe(0);
      expect(await serving(host, pairs[host]![0])).toBe(true);
    }

    await writeSpec('spec', {
      start: hook('start', 'app-{host}-{port}'),
      stop: hook('stop', 'app-{host}-{port}'),
    });
    const applied = await runCli(['config', 'apply', '--spec', specs.spec!, '--target', target]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    await startNginx({
      confPath: join(target, 'current', 'nginx.conf'),
      prefix: root,
      startupErrorLog: join(root, 'logs', 'error.log'),
    });
    expect(
      (await waitUntilReady(`http://127.0.0.1:${nginxPort}/health/ready`, { boundMs: 30_000, pollMs: 100 }))
        .ready,
    ).toBe(true);
    auth = { authorization: `Bearer ${await adminToken()}`, accept: 'application/json' };
  }, 120_000);

  afterAll(async () => {
    if (supervisorConf) await supervisorctl('stop', 'all');
    supervisord?.kill('SIGTERM');
    await supervisord;
    if (await readLiveMasterPid(join(root, 'nginx.pid')))
      await signalNginx({ confPath: join(target, 'current', 'nginx.conf'), prefix: root }, 'stop');
    await rm(root, { recursive: true, force: true });
  }, 60_000);

  const load = () =>
    startNoRetryLoad({
      base: `http://127.0.0.1:${nginxPort}`,
      headers: auth,
      getPath: `/users/${SEED_USER}`,
      postPath: '/orders',
      postBody: body,
      getConnections: 6,
      postConnections: 3,
      rate: 20,
    });

  /** Every order a 2xx POST reported is in the database. */
  const stored = async (result: NoRetryLoadResult) => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM orders WHERE id = ANY($1::uuid[])',
        [result.createdIds],
      );
      return Number(rows[0]!.n);
    } finally {
      await client.end();
    }
  };

  const expectClean = async (result: NoRetryLoadResult) => {
    const summary = JSON.stringify({ ...result, createdIds: result.createdIds.length }, null, 1);
    expect(result.get, summary).toMatchObject({ errors: 0, non2xx: 0 });
    // nginx's new connections to the old instance are refused before it closes its listener, so no
    // POST meets a connection reset in its accept queue (docs/deploys.md, "The alternate path").
    expect(result.post, summary).toMatchObject({ errors: 0, non2xx: 0 });
    expect(
      Object.keys(result.statuses).filter((s) => !/^2/.test(s)),
      summary,
    ).toEqual([]);
    expect(result.get.total).toBeGreaterThan(200);
    expect(result.post.total).toBeGreaterThan(100);
    expect(result.createdIds).toHaveLength(result.post.total);
    expect(await stored(result)).toBe(result.createdIds.length);
  };

  const statusOf = async (program: string) => (await supervisorctl('status', program)).stdout;
  /** The serving instances the state records; before the first deploy records any, the spec's servers. */
  const inState = async () => {
    const text = await readFile(join(target, 'instances.json'), 'utf8').catch(() => undefined);
    if (text === undefined) return HOSTS.map((h) => `${h}:${pairs[h]![0]}`).sort();
    return (
      JSON.parse(text) as { upstreams: { app: Array<{ host: string; port: number; inUpstream: boolean }> } }
    ).upstreams.app
      .filter((i) => i.inUpstream)
      .map((i) => `${i.host}:${i.port}`)
      .sort();
  };

  it('deploy plan names the alternate path and the exact hook commands', async () => {
    const run = await runCli(['deploy', 'plan', '--spec', specs.spec!, '--target', target]);
    expect(run.exitCode, run.stderr).toBe(0);
    const [a, b] = pairs['127.0.0.2']!;
    expect(run.stdout).toContain(`127.0.0.2:${a}: alternate path (the new instance on 127.0.0.2:${b}`);
    expect(run.stdout).toContain(`hook start app-127.0.0.2-${b}`);
    expect(run.stdout).toContain(`hook stop app-127.0.0.2-${a}`);
    expect(run.stdout).not.toContain('reload path');
    expect(run.stdout).not.toContain('validate, swap, reload');
    // As root with nft, nginx's new connections to the old instance are refused before its stop hook.
    expect(run.stdout).toContain(`refuse nginx's new connections to 127.0.0.2:${a} on every nginx host`);
  }, 60_000);

  it('two rolling deploys in a row under GET and POST keep-alive load that never retries: 0 failed, 0 non-2xx, every POST stored, no reload', async () => {
    const nginxBefore = await nginxPids(join(root, 'nginx.pid'));
    const running = load();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const deploy = ['deploy', '--spec', specs.spec!, '--target', target, '--json'];
    const one = await runCli(deploy);
    const afterOne = await inState();
    const two = await runCli(deploy);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const result = await running.stop();
    expect(one.exitCode, one.stdout + one.stderr).toBe(0);
    expect(two.exitCode, two.stdout + two.stderr).toBe(0);
    await expectClean(result);
    // Before each stop, nginx's new connections to the old instance were refused and its accept queue
    // seen empty.
    const removed = [one, two]
      .flatMap((run) => run.stdout.split('\n'))
      .filter((line) => line.includes('"step-done"') && line.includes('"kind":"remove"'));
    expect(removed).toHaveLength(2 * HOSTS.length);
    for (const line of removed) expect(line).toMatch(/its accept queue is empty/);
    // Blue to green and back: each deploy moved every instance to the other address of its pair.
    expect(afterOne).toEqual(HOSTS.map((h) => `${h}:${pairs[h]![1]}`).sort());
    expect(await inState()).toEqual(HOSTS.map((h) => `${h}:${pairs[h]![0]}`).sort());
    for (const host of HOSTS) {
      expect(await statusOf(`app-${host}-${pairs[host]![0]}`)).toMatch(/RUNNING/);
      expect(await statusOf(`app-${host}-${pairs[host]![1]}`)).toMatch(/STOPPED/);
    }
    expect(await nginxPids(join(root, 'nginx.pid'))).toEqual(nginxBefore);
  }, 180_000);

  it('--replace/--with hands traffic over to an instance the caller started, runs the stop hook, says the old one is idle', async () => {
    const nginxBefore = await nginxPids(join(root, 'nginx.pid'));
    const host = '127.0.0.2';
    const [a, b] = pairs[host]!;
    const started = await supervisorctl('start', `app-${host}-${b}`);
    expect(started.exitCode, started.stdout).toBe(0);
    const running = load();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const run = await runCli([
      'deploy',
      '--spec',
      specs.spec!,
      '--target',
      target,
      '--upstream',
      'app',
      '--replace',
      `${host}:${a}`,
      '--with',
      `${host}:${b}`,
      '--json',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const result = await running.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    await expectClean(result);
    const kinds = run.events
      .filter((e) => e.type === 'step-done')
      .map((e) => (e.step as { kind: string }).kind);
    expect(kinds[0]).toBe('wait-ready');
    expect(kinds).not.toContain('start');
    const last = run.events.filter((e) => e.type === 'step-done').at(-1)!;
    expect(String(last.outcome)).toMatch(new RegExp(`${host}:${a} stopped accepting after \\d+ ms: idle`));
    expect(await statusOf(`app-${host}-${a}`)).toMatch(/STOPPED/);
    expect((await hookRuns()).filter((l) => l === `stop app-${host}-${a}`).length).toBeGreaterThan(0);
    expect(await inState()).toContain(`${host}:${b}`);
    expect(await nginxPids(join(root, 'nginx.pid'))).toEqual(nginxBefore);
    // The spec still describes what runs: an instance on its server's alternate is no drift.
    const again = await runCli(['config', 'apply', '--spec', specs.spec!, '--target', target]);
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
  }, 120_000);

  /** A failed deploy: exit 1, rolled back, the old instances serve on, and no stop hook ran for them. */
  const expectRolledBack = async (
    run: Awaited<ReturnType<typeof runCli>>,
    before: string[],
    since: number,
  ) => {
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    expect(await inState()).toEqual(before);
    for (const address of before) {
      const [host, port] = address.split(':');
      expect(await serving(host!, Number(port))).toBe(true);
      const stops = (await hookRuns()).slice(since).filter((l) => l === `stop app-${host}-${port}`);
      expect(stops, address).toEqual([]);
    }
    expect((await fetch(`http://127.0.0.1:${nginxPort}/users/${SEED_USER}`, { headers: auth })).status).toBe(
      200,
    );
  };

  it('a start hook that exits 1: rolled back, exit 1, the old instance serving, its stop hook never run', async () => {
    const before = await inState();
    const since = (await hookRuns()).length;
    const spec = await writeSpec('start-fails', {
      start: ['sh', '-c', 'echo "cannot pull the image" >&2; exit 1'],
      stop: hook('stop', 'app-{host}-{port}'),
    });
    const run = await runCli(['deploy', '--spec', spec, '--target', target, '--json']);
    const abort = run.events.find((e) => e.type === 'abort')!;
    expect(String(abort.reason)).toMatch(/start hook for 127\.0\.0\.\d:\d+ exited 1: cannot pull the image/);
    await expectRolledBack(run, before, since);
  }, 60_000);

  it('a new instance that never becomes ready: rolled back, exit 1, the old instance serving, its stop hook never run', async () => {
    const before = await inState();
    const since = (await hookRuns()).length;
    // The start hook returns 0 and starts nothing: nothing ever answers at the new address.
    const spec = await writeSpec('never-ready', {
      start: ['true'],
      stop: hook('stop', 'app-{host}-{port}'),
      readyTimeout: 2,
    });
    const run = await runCli(['deploy', '--spec', spec, '--target', target, '--json']);
    const abort = run.events.find((e) => e.type === 'abort')!;
    expect(String(abort.reason)).toMatch(/was not ready within 2000 ms/);
    await expectRolledBack(run, before, since);
  }, 60_000);

  it('a new instance that answers 500 to everything but its readiness: the watch rolls it back, exit 1, the old instance serving, its stop hook never run', async () => {
    const before = await inState();
    const since = (await hookRuns()).length;
    const spec = await writeSpec('answers-500', {
      start: hook('start', 'broken-{host}-{port}'),
      stop: hook('stop', 'broken-{host}-{port}'),
      watch: 3,
    });
    const traffic = startLoad(`http://127.0.0.1:${nginxPort}/users/${SEED_USER}`, auth, { rate: 100 });
    const run = await runCli(['deploy', '--spec', spec, '--target', target, '--json']);
    await traffic.stop();
    const status = run.events.find((e) => e.type === 'status') as unknown as {
      newInstance: { fivexx: number };
    };
    expect(status.newInstance.fivexx).toBeGreaterThan(0);
    expect(run.events.find((e) => e.type === 'abort')).toMatchObject({ rolledBack: true });
    await expectRolledBack(run, before, since);
    // The broken instance was stopped by its own stop hook: its address refuses again.
    for (const host of HOSTS)
      for (const port of pairs[host]!)
        if (!before.includes(`${host}:${port}`))
          expect(await statusOf(`broken-${host}-${port}`)).not.toMatch(/RUNNING/);
  }, 60_000);

  /**
   * Statuses in the access log written since `from` (bytes), with the address of each request's last
   * attempt (the one whose answer the client got).
   */
  const loggedSince = async (from: number) =>
    (await readFile(join(root, 'logs', 'access.log')))
      .subarray(from)
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => ({
        status: /" (\d{3}) \d+ "/.exec(line)?.[1],
        last: /ua="([^"]*)"/
          .exec(line)?.[1]
          ?.split(/, | : /)
          .at(-1),
      }));

  for (const [permille, what] of [
    [1000, 'every request'],
    [50, '5 % of its requests'],
  ] as const)
    it(`a release answering 500 to ${what}, deployed with the default gates under GET and POST load that never retries: rolled back, exit 1, and the way back fails no request`, async () => {
      const before = await inState();
      const since = (await hookRuns()).length;
      // The spec's deploy section names only the hooks: every gate and the watch are the defaults.
      // The servers keep nginx's defaults too (max_fails 3, fail_timeout 10 s).
      const spec = await writeSpec(
        `bad-${permille}`,
        {
          start: hook('start', `bad${permille}-{host}-{port}`),
          stop: hook('stop', `bad${permille}-{host}-{port}`),
          watch: DEFAULTS.deploy.watch,
        },
        {},
      );
      const applied = await runCli(['config', 'apply', '--spec', spec, '--target', target]);
      expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
      const logFrom = (await stat(join(root, 'logs', 'access.log'))).size;
      const running = load();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const run = await runCli(['deploy', '--spec', spec, '--target', target, '--json']);
      // The load goes on after the rollback: the old instances answer all of it.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const result = await running.stop();
      const summary = JSON.stringify(
        { ...result, createdIds: result.createdIds.length, run: run.stdout },
        null,
        1,
      );
      const status = run.events.find((e) => e.type === 'status') as unknown as {
        gate: { gate: string; fivexx: { verdict: string; mine: { requests: number; fivexx: number } } };
        fivexx: { alpha: number; limit: number; floor: number };
      };
      expect(status.gate, summary).toMatchObject({ gate: '5xx' });
      expect(['rise', 'floor']).toContain(status.gate.fivexx.verdict);
      expect(status.fivexx).toMatchObject({ alpha: 0.001, limit: 0.01, floor: 0.05 });
      expect(run.events.find((e) => e.type === 'abort')).toMatchObject({ rolledBack: true });
      await expectRolledBack(run, before, since);
      // Not one request failed: no connection error, and every answer that is not a 2xx is a 500
      // the bad release wrote itself (no 502 of nginx's, such as "no live upstreams").
      expect(result.get.errors + result.post.errors, summary).toBe(0);
      expect(
        Object.keys(result.statuses).filter((s) => !/^2/.test(s) && s !== '500'),
        summary,
      ).toEqual([]);
      const fresh = HOSTS.flatMap((h) => pairs[h]!.map((p) => `${h}:${p}`)).filter(
        (a) => !before.includes(a),
      );
      const logged = await loggedSince(logFrom);
      expect(
        logged.filter((l) => l.status !== undefined && !/^2/.test(l.status) && l.status !== '500'),
      ).toEqual([]);
      const fiveHundreds = logged.filter((l) => l.status === '500');
      expect(fiveHundreds.length).toBe(result.statuses['500'] ?? 0);
      for (const l of fiveHundreds) expect(fresh).toContain(l.last);
      for (const host of HOSTS)
        for (const port of pairs[host]!)
          if (!before.includes(`${host}:${port}`))
            expect(await statusOf(`bad${permille}-${host}-${port}`)).not.toMatch(/RUNNING/);
    }, 120_000);

  it("Ctrl-C once nginx's new connections to the old instance were refused, with one pair alone in its upstream: the round is put back, and the way back fails no request", async () => {
    // One pair: while nginx's workers count both of its addresses down, they have no other server.
    const host = HOSTS[0];
    const [serving_] = (await inState()).filter((a) => a.startsWith(`${host}:`));
    const spec = await writeSpec(
      'one-pair',
      { start: hook('start', 'app-{host}-{port}'), stop: hook('stop', 'app-{host}-{port}') },
      undefined,
      // Few idle upstream connections kept: nginx opens new ones all along, as under a saturating load.
      { hosts: [host], keepalive: 1, servingAt: () => Number(serving_!.split(':')[1]) },
    );
    const applied = await runCli([
      'config',
      'apply',
      '--spec',
      spec,
      '--target',
      target,
      '--servers-from',
      'spec',
    ]);
    expect(applied.exitCode, applied.stdout + applied.stderr).toBe(0);
    const running = load();
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Held inside the remove step until interrupted; it then refuses the old instance, and the
    // interruption puts the round back before the old instance is told to stop.
    const child = execa('node', [CLI, 'deploy', '--spec', spec, '--target', target, '--json'], {
      reject: false,
      buffer: false,
      env: { PROXYOPS_DEPLOY_HOLD: 'remove' },
    });
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => (out += chunk));
    await expect
      .poll(() => out, { timeout: 60_000 })
      .toMatch(/"type":"step-start","step":\{[^}]*"kind":"remove"/);
    // nginx sends the old instance and the new one requests meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill('SIGINT');
    const exit = await child;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const result = await running.stop();
    const events = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(exit.exitCode, out).toBe(1);
    expect(
      events.find((e) => e.type === 'step-done' && (e.step as { kind: string }).kind === 'remove'),
      out,
    ).toBeDefined();
    expect(
      events.find((e) => e.type === 'abort'),
      out,
    ).toMatchObject({ rolledBack: true });
    expect((await inState()).filter((a) => a.startsWith(`${host}:`))).toEqual([serving_]);
    await expectClean(result);
  }, 120_000);
});
