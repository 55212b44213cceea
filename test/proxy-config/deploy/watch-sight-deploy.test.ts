import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLiveMasterPid } from '../../../proxy-config/shell/nginx/nginx-master.js';
import { signalNginx, startNginx } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { waitUntilReady } from '../../../proxy-config/shell/process/wait-until-ready.js';
import { freePort } from '../../support/ports.js';
import { startLoad } from './load.js';
import { CLI, isAlive, runCli, singleAppSpec } from './stack-harness.js';

const APP = join(import.meta.dirname, 'fixtures', 'tiny-app.mjs');

async function waitFor(url: string): Promise<void> {
  const { ready, lastStatus } = await waitUntilReady(url, { boundMs: 30_000, pollMs: 50 });
  if (!ready) throw new Error(`${url} never answered 200 (last status ${lastStatus})`);
}

/** A real nginx from `config apply` in front of one instance the test started; `snippet` goes into its server. */
async function startSite(name: string, snippet?: (accessLog: string) => string) {
  const root = await mkdtemp(join(tmpdir(), `proxyops-watch-${name}-`));
  await chmod(root, 0o755);
  const target = join(root, 'config');
  await mkdir(join(root, 'logs'), { mode: 0o755 });
  await mkdir(join(root, 'temp'), { mode: 0o755 });
  const nginxPort = await freePort();
  const appPort = await freePort();
  const app: ChildProcess = spawn('node', [APP, String(appPort)], {
    stdio: 'ignore',
    env: { ...process.env, PROXYOPS_DRAIN_MARGIN_MS: '300' },
  });
  await waitFor(`http://127.0.0.1:${appPort}/health/ready`);
  const specPath = join(root, 'spec.yaml');
  const accessLog = join(root, 'logs', 'access.log');
  await writeFile(
    specPath,
    singleAppSpec({
      root,
      app: APP,
      appPort,
      nginxPort,
      ...(snippet ? { snippet: snippet(accessLog) } : {}),
    }),
  );
  const applied = await runCli(['config', 'apply', '--spec', specPath, '--target', target]);
  expect(applied.exitCode, applied.stderr).toBe(0);
  const nginx = { confPath: join(target, 'current', 'nginx.conf'), prefix: root };
  await startNginx({ ...nginx, startupErrorLog: join(root, 'logs', 'error.log') });
  await waitFor(`http://127.0.0.1:${nginxPort}/`);
  return {
    root,
    target,
    specPath,
    accessLog,
    url: `http://127.0.0.1:${nginxPort}/`,
    app,
    /** The ports of the instances the state records in the upstream (the test's app until a deploy replaced it). */
    async serving(): Promise<number[]> {
      const text = await readFile(join(target, 'instances.json'), 'utf8').catch(() => undefined);
      if (text === undefined) return [appPort];
      const state = JSON.parse(text) as { upstreams: { app: Array<{ port: number; inUpstream: boolean }> } };
      return state.upstreams.app.filter((i) => i.inUpstream).map((i) => i.port);
    },
    async stop() {
      const text = await readFile(join(target, 'instances.json'), 'utf8').catch(() => '{"upstreams":{}}');
      const state = JSON.parse(text) as { upstreams: Record<string, Array<{ pid?: number }>> };
      for (const instance of Object.values(state.upstreams).flat())
        if (instance.pid) process.kill(instance.pid, 'SIGKILL');
      app.kill('SIGKILL');
      if (await readLiveMasterPid(join(root, 'nginx.pid'))) await signalNginx(nginx, 'stop');
      await rm(root, { recursive: true, force: true });
    },
  };
}

type Site = Awaited<ReturnType<typeof startSite>>;
type Event = Record<string, unknown> & { type: string };
const eventsOf = (stdout: string): Event[] =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Event);

describe('a deploy watch over a combined access log (no $upstream_addr)', () => {
  let site: Site;
  beforeAll(async () => {
    // The server's own access_log writes the spec's file in nginx's combined format: the live nginx
    // runs the target's config, yet no line says which instance answered.
    site = await startSite('combined', (accessLog) => `access_log ${accessLog} combined`);
  }, 60_000);
  afterAll(async () => site?.stop());

  it('deploy refuses to run blind (one line with the fix, exit 2, nothing started or stopped); deploy plan prints the plan, then that refusal', async () => {
    const config = await readFile(join(site.target, 'current', 'nginx.conf'), 'utf8');
    const cause =
      /access_log \S+access\.log at \S+:\d+ uses log_format combined, which has no \$upstream_addr/;
    // As for a live nginx that differs: the plan, then `refused now:` with the deploy's own line, exit 0.
    const plan = await runCli(['deploy', 'plan', '--spec', site.specPath, '--target', site.target]);
    expect(plan.exitCode, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toMatch(/^deploy plan: upstream /);
    const refusedNow = plan.stdout.trimEnd().split('\n').at(-1)!;
    expect(refusedNow).toMatch(/^refused now: the deploy watch cannot judge the new instance: /);
    expect(refusedNow).toMatch(cause);
    expect(refusedNow).toContain('or deploy with --watch readiness-only');
    const load = startLoad(site.url, {}, { rate: 100 });
    const run = await runCli(['deploy', '--spec', site.specPath, '--target', site.target]);
    const result = await load.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(cause);
    expect(run.stderr.replace(/^proxyops: /, 'refused now: ').trimEnd()).toBe(refusedNow);
    // Refused before a plan could be made: --json still says why, in the plan event's `refused`.
    const json = await runCli(['deploy', '--json', '--spec', site.specPath, '--target', site.target]);
    expect(json.exitCode, json.stderr).toBe(2);
    expect(json.events).toEqual([
      expect.objectContaining({ type: 'plan', refused: expect.stringMatching(cause) }),
    ]);
    expect(json.events[0]).not.toHaveProperty('plan');
    // Nothing started (no state recorded, no step run), nothing stopped, nginx's config as it was.
    expect(await site.serving()).toEqual([expect.any(Number)]);
    await expect(readFile(join(site.target, 'instances.json'))).rejects.toThrow();
    expect(await isAlive(site.app.pid!)).toBe(true);
    expect(await readFile(join(site.target, 'current', 'nginx.conf'), 'utf8')).toBe(config);
    expect(result).toMatchObject({ errors: 0, non2xx: 0 });
  }, 60_000);

  it('--watch readiness-only deploys, and the plan and every verdict (text and --json) say it was not watched', async () => {
    const plan = await runCli([
      'deploy',
      'plan',
      ...['--spec', site.specPath, '--target', site.target, '--watch', 'readiness-only'],
    ]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('  not seen: not watched: readiness only\n');
    expect(plan.stdout).toMatch(/ {2}not seen: access_log .* uses log_format combined/);
    const load = startLoad(site.url, {}, { rate: 100 });
    const run = await runCli([
      'deploy',
      ...['--spec', site.specPath, '--target', site.target, '--watch', 'readiness-only', '--json'],
    ]);
    const text = await runCli([
      'deploy',
      '--spec',
      site.specPath,
      '--target',
      site.target,
      '--watch',
      'readiness-only',
    ]);
    const result = await load.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const statuses = eventsOf(run.stdout).filter((e) => e.type === 'status');
    expect(statuses.length).toBeGreaterThan(0);
    for (const status of statuses) {
      expect(status.watch).toBe('readiness-only');
      expect((status.unseen as string[])[0]).toBe('not watched: readiness only');
      expect(status.unseen).toEqual(
        expect.arrayContaining([
          expect.stringContaining('uses log_format combined, which has no $upstream_addr'),
        ]),
      );
    }
    expect(text.exitCode, text.stdout + text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /watch of new instance 127\.0\.0\.1:\d+: alive and ready → ok \(not watched: readiness only; /,
    );
    expect(text.stdout).toMatch(/deployed in /);
    expect(result).toMatchObject({ errors: 0, non2xx: 0 });
  }, 90_000);
});

describe('a deploy watch with too little traffic: never "ok" on nothing', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite('traffic');
  }, 60_000);
  afterAll(async () => site?.stop());

  /** A deploy that waits at most 2 s for the new instance's requests. */
  const shortWatchDeploy = () => [
    'deploy',
    '--spec',
    site.specPath,
    '--target',
    site.target,
    '--max-watch',
    '2',
    '--json',
  ];

  /** The test's instance serves on and the new one is gone: the round was put back. */
  async function expectPutBack(run: { stdout: string }, before: number[]) {
    expect(await site.serving()).toEqual(before);
    expect(await isAlive(site.app.pid!)).toBe(true);
    const config = await readFile(join(site.target, 'current', 'nginx.conf'), 'utf8');
    for (const port of before) expect(config).toContain(`127.0.0.1:${port} `);
    const started = eventsOf(run.stdout)
      .filter((e) => e.type === 'step-done' && (e.step as { kind: string }).kind === 'start')
      .map((e) => Number(/pid (\d+)/.exec(String(e.outcome))?.[1]));
    expect(started).toHaveLength(1);
    expect(await isAlive(started[0]!)).toBe(false);
  }

  it('no requests at all: the watch waits up to --max-watch, then rolls the round back and exits 1: could not judge', async () => {
    const before = await site.serving();
    const run = await runCli(shortWatchDeploy());
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const events = eventsOf(run.stdout);
    const status = events.find((e) => e.type === 'status')!;
    expect(status.verdict).toMatchObject({ verdict: 'not-judged' });
    expect(status.unseen).toContain('status codes and latency not judged: 0 request(s) of the new instance');
    const abort = events.find((e) => e.type === 'abort')!;
    expect(abort).toMatchObject({ rolledBack: true });
    expect(String(abort.reason)).toMatch(
      /^could not judge the new instance 127\.0\.0\.1:\d+: 0 request\(s\) in [\d.]+ m?s, at least 20 needed .*add traffic or use --watch readiness-only$/,
    );
    // Not judged, not found bad: the end says which (exit 1 either way).
    expect(events.at(-1)).toMatchObject({ type: 'done', outcome: 'not-judged' });
    await expectPutBack(run, before);
  }, 60_000);

  it('a trickle of requests (under --min-requests): not judged either, and the count is the new instance’s own', async () => {
    const before = await site.serving();
    const load = startLoad(site.url, {}, { rate: 4, connections: 1 });
    const run = await runCli(shortWatchDeploy());
    await load.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const events = eventsOf(run.stdout);
    const status = events.find((e) => e.type === 'status')!;
    const mine = (status.newInstance as { total: number }).total;
    expect(mine).toBeGreaterThan(0);
    expect(mine).toBeLessThan(20);
    expect(status.verdict).toMatchObject({ verdict: 'not-judged' });
    expect(String(events.find((e) => e.type === 'abort')!.reason)).toContain(`: ${mine} request(s) in `);
    await expectPutBack(run, before);
  }, 60_000);

  it('traffic that comes only after the watch: the watch goes on until the new instance answered enough, then judges it', async () => {
    const deploy = execa(
      'node',
      [CLI, 'deploy', '--spec', site.specPath, '--target', site.target, '--max-watch', '30', '--json'],
      { reject: false },
    );
    // The plan event names the watch step too: wait for the watch step's own start, line by line.
    const watching = new Promise<void>((resolve) => {
      let pending = '';
      deploy.stdout!.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        const lines = pending.split('\n');
        pending = lines.pop()!;
        for (const line of lines) {
          const event = JSON.parse(line) as { type: string; step?: { kind: string } };
          if (event.type === 'step-start' && event.step?.kind === 'watch') resolve();
        }
      });
    });
    await watching;
    // Past the 0.5 s watch: before, it had ended "ok" on no request at all.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const load = startLoad(site.url, {}, { rate: 50 });
    const run = await deploy;
    const result = await load.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const status = eventsOf(run.stdout).find((e) => e.type === 'status')!;
    expect(status.verdict).toMatchObject({ verdict: 'ok' });
    expect((status.newInstance as { total: number }).total).toBeGreaterThanOrEqual(20);
    expect(result).toMatchObject({ errors: 0, non2xx: 0 });
    // The deploy went through: its new instance's start, as the watch read it, is the next deploy's like with like.
    const { starts } = JSON.parse(await readFile(join(site.target, 'instances.json'), 'utf8')) as {
      starts: Record<string, { recordedAt: string; instances: Array<{ ms: number[] }> }>;
    };
    expect(starts.app!.instances).toHaveLength(1);
    expect(starts.app!.instances[0]!.ms.length).toBe((status.newInstance as { total: number }).total);
    expect(Date.parse(starts.app!.recordedAt)).toBeGreaterThan(Date.now() - 60_000);
  }, 90_000);

  it('deploy rollback with no traffic keeps the known-good release it could not judge: exit 0, named not-judged', async () => {
    const at = ['--spec', site.specPath, '--target', site.target];
    for (const version of ['v1', 'v2']) {
      // No traffic to judge these by: the release history is what this test needs.
      const deployed = await runCli(['deploy', ...at, '--version', version, '--watch', 'readiness-only']);
      expect(deployed.exitCode, deployed.stdout + deployed.stderr).toBe(0);
    }
    const before = await site.serving();
    const run = await runCli(['deploy', 'rollback', ...at, '--max-watch', '1', '--json']);
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const events = eventsOf(run.stdout);
    expect(events.find((e) => e.type === 'abort')).toBeUndefined();
    const status = events.find((e) => e.type === 'status')!;
    expect(status.verdict).toMatchObject({ verdict: 'not-judged' });
    expect(status.unseen).toContain('status codes and latency not judged: 0 request(s) of the new instance');
    const watched = events.find(
      (e) => e.type === 'step-done' && (e.step as { kind: string }).kind === 'watch',
    )!;
    expect(String(watched.outcome)).toMatch(
      /^new instance alive and ready; kept as a rollback is: could not judge/,
    );
    expect(events.at(-1)).toMatchObject({ type: 'done', outcome: 'deployed' });
    // The rollback's instance serves, not the one it replaced.
    expect(await site.serving()).not.toEqual(before);
    const state = JSON.parse(await readFile(join(site.target, 'instances.json'), 'utf8')) as {
      releases: Record<string, { current: string }>;
      starts?: unknown;
    };
    expect(state.releases.app!.current).toBe('v1');
    // Deploys that read no request time of their new instance leave no record of an older release's start.
    expect(state.starts).toBeUndefined();
  }, 90_000);
});
