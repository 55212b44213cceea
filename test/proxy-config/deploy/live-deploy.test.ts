import { appendFile, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import {
  adminToken,
  CLI,
  isAlive,
  stopStack,
  runCli,
  SEED_USER,
  stackPids,
  startStack,
  type StackProcess,
} from './stack-harness.js';
import { startLoad } from './load.js';

// Drain wait = 0.5 s × 2 + 1 s = 2 s: long enough to measure within 10 %, short enough for a test; the
// 1 s margin covers the reload that takes an instance out in health-check mode.
const DRAIN_MS = 2_000;
const FIXTURES = join(import.meta.dirname, 'fixtures');

function refuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(true));
  });
}

/** Records, for each port, the first moment it refused a connection (polled every 10 ms). */
function watchRefusals(ports: number[]): { stop(): Map<number, number> } {
  const refusedAt = new Map<number, number>();
  let running = true;
  void (async () => {
    while (running) {
      for (const port of ports)
        if (!refusedAt.has(port) && (await refuses(port))) refusedAt.set(port, Date.now());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    stop() {
      running = false;
      return refusedAt;
    },
  };
}

describe('proxyops deploy on the local stack (reload path), under constant load through the real nginx', () => {
  let stack: StackProcess;
  let auth: Record<string, string>;
  let target: string;

  beforeAll(async () => {
    // The reload path: instances on TCP ports, taken in and out of nginx's config.
    stack = await startStack([
      '--no-slots',
      '--instances',
      '2',
      '--health-interval',
      '0.5',
      '--health-threshold',
      '2',
      '--drain-margin',
      '1',
      '--watch',
      '1.5',
    ]);
    auth = { authorization: `Bearer ${await adminToken()}`, accept: 'application/json' };
    target = join(stack.dir, 'config');
  }, 120_000);
  afterAll(async () => {
    await stopStack(stack);
  });

  const userUrl = () => `${stack.url}/users/${SEED_USER}`;
  const ports = async () => (await stack.state()).upstreams.api!.map((i) => i.port);
  const accessLogSince = async (offset: number) =>
    (await readFile(join(stack.dir, 'logs', 'access.log'), 'latin1')).slice(offset);
  const accessLogSize = async () => (await stat(join(stack.dir, 'logs', 'access.log'))).size;
  const derivedSpec = async (name: string, change: (deploy: Record<string, unknown>) => void) => {
    const spec = JSON.parse(await readFile((await stack.state()).stack!.specPath, 'utf8'));
    change(spec.upstreams.api.deploy);
    const path = join(stack.dir, `${name}.json`);
    await writeFile(path, JSON.stringify(spec));
    return path;
  };
  const badSpec = (script: string) =>
    derivedSpec(script, (deploy) => {
      deploy.command = ['node', join(FIXTURES, script), '{port}', '{host}'];
      deploy.readyTimeout = 2;
    });
  const drainsOf = (events: Array<Record<string, unknown>>) =>
    events.filter((e) => e.type === 'drain') as unknown as Array<{
      address: string;
      computedMs: number;
      measuredMs: number;
    }>;
  const startedAddress = (events: Array<Record<string, unknown>>) => {
    const done = events.find((e) => e.type === 'step-done' && (e.step as { kind: string }).kind === 'start');
    const [, port, pid] = /started 127\.0\.0\.1:(\d+) \(pid (\d+)/.exec(String(done?.outcome)) ?? [];
    return { port: Number(port), pid: Number(pid) };
  };

  it('deploy plan prints every step with its computed wait and changes nothing', async () => {
    const before = await readFile(join(target, 'instances.json'), 'utf8');
    const text = await runCli(['deploy', 'plan', '--dir', stack.dir]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('drain wait = interval × threshold 1 s + margin 1 s = 2 s');
    expect(text.stdout.match(/^ +\d+\. \[\d\/2\]/gm)).toHaveLength(16);
    // The watch, and how long it waits at most for the new instance's requests (deploy.maxWatch).
    expect(text.stdout).toMatch(/watch: .*\[wait 1\.5 s, at most 60 s\]/);
    expect(text.stdout).toMatch(/wait-ready: .*\[at most 30 s\]/);
    const json = await runCli(['deploy', 'plan', '--dir', stack.dir, '--json']);
    const plan = json.events[0]!.plan as { drain: { waitMs: number }; steps: unknown[] };
    expect(plan.drain.waitMs).toBe(DRAIN_MS);
    expect(plan.steps).toHaveLength(16);
    expect(await readFile(join(target, 'instances.json'), 'utf8')).toBe(before);
  });

  it('exits 2 on bad input', async () => {
    expect(
      (await runCli(['deploy', '--spec', join(stack.dir, 'missing.json'), '--target', target])).exitCode,
    ).toBe(2);
    expect((await runCli(['deploy', '--dir', join(stack.dir, 'no-stack-here')])).exitCode).toBe(2);
    expect((await runCli(['deploy', '--spec', join(stack.dir, 'spec.json')])).exitCode).toBe(2);
  });

  it('a new instance that never becomes ready: the deploy aborts, no traffic reaches it, the old ones serve without an error', async () => {
    const oldPorts = await ports();
    const offset = await accessLogSize();
    const load = startLoad(userUrl(), auth);
    const run = await runCli([
      'deploy',
      '--spec',
      await badSpec('never-ready.mjs'),
      '--target',
      target,
      '--json',
    ]);
    const result = await load.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const abort = run.events.find((e) => e.type === 'abort')!;
    expect(abort.reason).toMatch(/not ready within 2000 ms .*nothing else changed/);
    const fresh = startedAddress(run.events);
    expect(fresh.port).toBeGreaterThan(0);
    expect(await isAlive(fresh.pid)).toBe(false);
    expect(await ports()).toEqual(oldPorts);
    expect(result.total).toBeGreaterThan(100);
    expect(result).toMatchObject({ errors: 0, non2xx: 0 });
    const log = await accessLogSince(offset);
    expect(log).not.toContain(`:${fresh.port}"`);
    expect(log).not.toMatch(/" [45]\d\d \d+ /);
  }, 60_000);

  it('a new instance answering 5xx after it became ready: the status watch detects it and rolls back', async () => {
    const oldPorts = await ports();
    const load = startLoad(userUrl(), auth);
    const run = await runCli([
      'deploy',
      '--spec',
      await badSpec('always-5xx.mjs'),
      '--target',
      target,
      '--json',
    ]);
    await load.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const fresh = startedAddress(run.events);
    const status = run.events.find((e) => e.type === 'status') as unknown as {
      verdict: { verdict: string };
      newInstance: { address: string; fivexx: number };
    };
    expect(status.verdict.verdict).toBe('regressed');
    expect(status.newInstance).toMatchObject({ address: `127.0.0.1:${fresh.port}` });
    expect(status.newInstance.fivexx).toBeGreaterThan(0);
    expect(run.events.find((e) => e.type === 'abort')).toMatchObject({ rolledBack: true });
    // Rolled back: nginx's config and the state name the old instances only; the broken one is gone.
    const config = await readFile(join(target, 'current', 'nginx.conf'), 'utf8');
    expect(config).not.toContain(`:${fresh.port} `);
    for (const port of oldPorts) expect(config).toContain(`127.0.0.1:${port} `);
    expect(await ports()).toEqual(oldPorts);
    expect(await isAlive(fresh.pid)).toBe(false);
    const after = startLoad(userUrl(), auth);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await after.stop()).toMatchObject({ errors: 0, non2xx: 0 });
  }, 60_000);

  it('health-check drain mode: each old instance fails readiness yet serves for interval × threshold, then leaves; zero failed requests', async () => {
    const oldPorts = await ports();
    const spec = await derivedSpec('health-check', (deploy) => (deploy.drainMode = 'health-check'));
    const offset = await accessLogSize();
    const load = startLoad(userUrl(), auth);
    const run = await runCli(['deploy', '--spec', spec, '--target', target, '--json']);
    const result = await load.stop();
    const failures = (await accessLogSince(offset)).split('\n').filter((l) => /" [^2]\d\d \d+ /.test(l));
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(result, JSON.stringify({ failures, result }, null, 1)).toMatchObject({ errors: 0, non2xx: 0 });
    expect(failures).toEqual([]);
    const detects = run.events.filter(
      (e) => e.type === 'step-done' && (e.step as { kind: string }).kind === 'drain-detect',
    );
    expect(detects).toHaveLength(2);
    for (const detect of detects) {
      const [, served] =
        /served (\d+) request\(s\) \(0 5xx\) while failing readiness/.exec(String(detect.outcome)) ?? [];
      expect(Number(served), String(detect.outcome)).toBeGreaterThan(10);
    }
    // Never earlier than the computed wait (an upper bound would be a wall-clock limit on a shared machine).
    for (const drain of drainsOf(run.events)) expect(drain.measuredMs).toBeGreaterThanOrEqual(DRAIN_MS);
    expect((await ports()).filter((p) => oldPorts.includes(p))).toEqual([]);
  }, 120_000);

  it('a full rolling deploy of 2 instances under load: zero failed requests, zero non-2xx, each old instance accepting for the computed wait, then refusing before its exit', async () => {
    const state = await stack.state();
    const old = state.upstreams.api!.map((i) => ({ port: i.port, pid: i.pid! }));
    const offset = await accessLogSize();
    const refusals = watchRefusals(old.map((o) => o.port));
    const load = startLoad(userUrl(), auth);
    const run = await runCli(['deploy', '--dir', stack.dir, '--json']);
    const result = await load.stop();
    const refusedAt = refusals.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(run.events.at(-1)).toMatchObject({ type: 'done', outcome: 'deployed' });
    // The plan comes first, before any step; fixed waits are counted down.
    expect(run.events[0]!.type).toBe('plan');
    expect(run.events[1]).toMatchObject({ type: 'step-start', step: { index: 1, kind: 'start' } });
    expect(run.events.filter((e) => e.type === 'countdown').length).toBeGreaterThanOrEqual(4);

    const log = await accessLogSince(offset);
    const failures = log.split('\n').filter((l) => /" [^2]\d\d \d+ /.test(l));
    expect(result.total).toBeGreaterThan(500);
    expect(result, JSON.stringify({ failures, result }, null, 1)).toMatchObject({ errors: 0, non2xx: 0 });
    expect(failures).toEqual([]);
    // Only a request written on a keep-alive connection an old nginx worker closed at one of the
    // 4 reloads is sent again (at most one per connection per reload).
    expect(result.retried).toBeLessThanOrEqual(4 * 4);

    const drains = drainsOf(run.events);
    expect(drains).toHaveLength(2);
    // Drain timing by order, not by wall clock: still accepting when the computed wait ended (the
    // instance never leaves early), and refusing (measured) before the deploy saw it exit.
    for (const drain of drains) {
      expect(drain.computedMs).toBe(DRAIN_MS);
      expect(drain.measuredMs).toBeGreaterThanOrEqual(DRAIN_MS);
      // Measured again from outside: from the signal event to the first refused connection.
      const port = Number(drain.address.split(':')[1]);
      const signal = run.events.find(
        (e) =>
          e.type === 'step-start' &&
          (e.step as { kind: string; old: { port: number } }).kind === 'signal' &&
          (e.step as { old: { port: number } }).old.port === port,
      )!;
      const outside = refusedAt.get(port)! - signal.ts;
      expect(outside).toBeGreaterThanOrEqual(DRAIN_MS);
      const exited = run.events.find(
        (e) =>
          e.type === 'step-done' &&
          (e.step as { kind: string; old: { port: number } }).kind === 'wait-exit' &&
          (e.step as { old: { port: number } }).old.port === port,
      )!;
      expect(String(exited.outcome)).toMatch(/stopped accepting after \d+ ms and exited/);
    }
    for (const o of old) expect(await isAlive(o.pid)).toBe(false);
    const now = await ports();
    expect(now).toHaveLength(2);
    expect(now.filter((p) => old.some((o) => o.port === p))).toEqual([]);
    expect((await fetch(userUrl(), { headers: auth })).status).toBe(200);
  }, 120_000);

  it('the access log rotated mid-watch (mv + USR1 to the master): the watch follows it and judges the new instance (issue 35)', async () => {
    const accessLog = join(stack.dir, 'logs', 'access.log');
    // A big log before the deploy: read by path and offset, the new file stayed below the watch's
    // offset for the whole watch and the round ended "could not judge".
    await appendFile(accessLog, `${'#'.repeat(1023)}\n`.repeat(8 * 1024));
    const spec = await derivedSpec('rotated-watch', (deploy) => {
      deploy.watch = 5;
      deploy.minRequests = 100;
      deploy.maxWatch = 20;
    });
    const load = startLoad(userUrl(), auth);
    // Fresh lines after the padding: the gates' baseline is the last 1000.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    const deploying = execa('node', [CLI, 'deploy', '--spec', spec, '--target', target, '--json'], {
      reject: false,
      buffer: false,
    });
    let out = '';
    deploying.stdout!.setEncoding('utf8');
    deploying.stdout!.on('data', (chunk: string) => (out += chunk));
    await expect.poll(() => out, { timeout: 30_000 }).toMatch(/"type":"step-start","step":\{"index":4,/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await rename(accessLog, `${accessLog}.1`);
    const master = Number((await readFile((await stack.state()).stack!.nginxPidFile, 'utf8')).trim());
    process.kill(master, 'SIGUSR1');
    const exit = await deploying;
    const result = await load.stop();
    const events = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(exit.exitCode, out + exit.stderr).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'done', outcome: 'deployed' });
    const watches = events.filter(
      (e) => e.type === 'step-done' && (e.step as { kind: string }).kind === 'watch',
    );
    expect(watches).toHaveLength(2);
    for (const watch of watches)
      expect(String(watch.outcome)).not.toMatch(/could not judge|kept as a rollback/);
    expect(result).toMatchObject({ errors: 0, non2xx: 0 });
  }, 120_000);

  it('Ctrl-C during a deploy puts the round back; a second deploy meanwhile is refused', async () => {
    const oldPorts = await ports();
    // A long watch (ended early by the interrupt) keeps step 4 open while the second CLI starts:
    // with 1.5 s a loaded machine ran past it before the SIGINT arrived.
    const spec = await derivedSpec('long-watch', (deploy) => (deploy.watch = 60));
    const first = execa('node', [CLI, 'deploy', '--spec', spec, '--target', target, '--json'], {
      reject: false,
      buffer: false,
    });
    let out = '';
    first.stdout!.setEncoding('utf8');
    first.stdout!.on('data', (chunk: string) => (out += chunk));
    await expect.poll(() => out, { timeout: 30_000 }).toMatch(/"type":"step-done","step":\{"index":3,/);
    const second = await runCli(['deploy', '--dir', stack.dir]);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toMatch(/another deploy \(pid \d+\) is running/);
    first.kill('SIGINT');
    expect((await first).exitCode).toBe(1);
    const events = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.find((e) => e.type === 'abort')).toMatchObject({ rolledBack: true });
    // The SIGINT lands in the watch (step 4), which judged nothing then: not marked done, one abort line.
    expect(String(events.find((e) => e.type === 'abort')!.reason)).toMatch(
      /^interrupted during step 4 \(watch\) of the round of 127\.0\.0\.1:\d+$/,
    );
    expect(events.filter((e) => e.type === 'abort')).toHaveLength(1);
    expect(events.some((e) => e.type === 'step-done' && (e.step as { index: number }).index === 4)).toBe(
      false,
    );
    const fresh = startedAddress(events);
    expect(await isAlive(fresh.pid)).toBe(false);
    expect(await ports()).toEqual(oldPorts);
    expect(await readFile(join(target, 'current', 'nginx.conf'), 'utf8')).not.toContain(`:${fresh.port} `);
    expect((await fetch(userUrl(), { headers: auth })).status).toBe(200);
  }, 60_000);

  it('SIGTERM during a deploy is Ctrl-C: it says so, puts the round back, exits 1', async () => {
    const oldPorts = await ports();
    const spec = await derivedSpec('long-watch-term', (deploy) => (deploy.watch = 60));
    const deploying = execa('node', [CLI, 'deploy', '--spec', spec, '--target', target], {
      reject: false,
      buffer: false,
    });
    let out = '';
    deploying.stdout!.setEncoding('utf8');
    deploying.stdout!.on('data', (chunk: string) => (out += chunk));
    await expect.poll(() => out, { timeout: 30_000 }).toMatch(/✓ 3\. /);
    deploying.kill('SIGTERM');
    const exit = await deploying;
    expect(exit.exitCode, out).toBe(1);
    expect(out).toContain('interrupted (SIGTERM): rolling this round back after the current step\n');
    expect(out).toMatch(/interrupted during step 4 \(watch\) of the round of 127\.0\.0\.1:\d+/);
    expect(await ports()).toEqual(oldPorts);
    expect((await fetch(userUrl(), { headers: auth })).status).toBe(200);
  }, 60_000);

  it('proxyops down stops nginx, the instances and the database, leaving no process behind', async () => {
    const pids = await stackPids(stack);
    const run = await runCli(['down', '--dir', stack.dir]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect((await stack.process).exitCode).toBe(0);
    for (const pid of pids) expect(await isAlive(pid), `pid ${pid} is still running`).toBe(false);
  }, 60_000);
});
