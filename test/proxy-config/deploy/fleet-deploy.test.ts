import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { execa } from 'execa';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeployPlan } from '../../../proxy-config/core/deploy/plan-deploy.js';
import { isAccepting } from '../../../proxy-config/shell/process/tcp-accepting.js';
import { fetchStatus } from '../../../proxy-config/shell/process/wait-until-ready.js';
import { APPS, loadThroughAll, serving, startFleet, storedCount, WEB, type Fleet } from './fleet-harness.js';

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet();
}, 180_000);

afterAll(async () => {
  await fleet?.hosts.teardown();
}, 60_000);

describe('deploy across hosts: three nginx hosts in front of two app hosts, over ssh', () => {
  it('rolls every app host under a load that never retries through all three nginx hosts: 0 failed, every 2xx POST stored', async () => {
    const { pair, address } = fleet;
    const load = loadThroughAll(fleet);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const run = await fleet.deploy(fleet.specPath);
    const results = await load.stop();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const events = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Per-host progress: each round's steps carry the app host they run on.
    const starts = events.filter((e) => e.type === 'step-start');
    expect(new Set(starts.map((e) => e.host))).toEqual(new Set(APPS));
    // Every nginx host refused its new connections to each old instance before that one was stopped.
    const kinds = starts.map((e) => (e.step as { kind: string }).kind);
    expect(kinds.filter((k) => k === 'remove')).toHaveLength(APPS.length);
    expect(kinds.indexOf('remove')).toBe(kinds.indexOf('signal') - 1);
    // …and saw, on the app host over ssh, that nothing waited in its accept queue before the stop.
    const removed = events.filter(
      (e) => e.type === 'step-done' && (e.step as { kind: string }).kind === 'remove',
    );
    for (const done of removed) expect(done.outcome).toMatch(/its accept queue is empty/);
    for (const result of results) {
      const summary = JSON.stringify({ ...result, createdIds: result.createdIds.length });
      expect(result.get, summary).toMatchObject({ errors: 0, non2xx: 0 });
      expect(result.post, summary).toMatchObject({ errors: 0, non2xx: 0 });
      expect(result.get.total).toBeGreaterThan(100);
      expect(result.post.total).toBeGreaterThan(50);
      expect(await storedCount(result.createdIds)).toBe(result.createdIds.length);
    }
    // Both nginx hosts record the same instances: every app host on the other address of its pair.
    const moved = APPS.map((name) => `${address(name)}:${pair[1]}`).sort();
    for (const web of WEB) expect(await fleet.recorded(web)).toEqual(moved);
    // deploy plan reads the nginx hosts (no lock): the next deploy replaces what they record, and
    // every one of them can refuse nginx's connections first.
    const plan = await fleet.proxyops('deploy', 'plan', '--spec', fleet.specPath, '--json');
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const planned = (JSON.parse(plan.stdout) as { plan: DeployPlan }).plan;
    expect(planned.instances.map((i) => `${i.host}:${i.port}`).sort()).toEqual(moved);
    expect(planned.steps.filter((step) => step.kind === 'remove')).toHaveLength(APPS.length);
  }, 240_000);
});

describe('the live nginx of every host is looked at before acting', () => {
  it('a spec whose alternates the nginx hosts do not list: exit 2, one line naming each host and both pictures, nothing started', async () => {
    const spec = JSON.parse(await readFile(fleet.specPath, 'utf8')) as {
      upstreams: { app: { servers: Array<{ host: string; port: number; alternate: number }> } };
    };
    // Each server where it serves now (as recorded after a deploy, else as first started), paired
    // with an address no nginx host lists.
    const recorded = () => Promise.all(WEB.map((web) => fleet.recorded(web).catch(() => [])));
    const before = await recorded();
    const other = Math.max(...fleet.pair) + 1;
    for (const server of spec.upstreams.app.servers) {
      const serving = before[0]!.find((a) => a.startsWith(`${server.host}:`));
      server.port = serving ? Number(serving.split(':')[1]) : fleet.pair[0];
      server.alternate = other;
    }
    const path = join(fleet.hosts.root, 'spec-other-alternates.json');
    await writeFile(path, JSON.stringify(spec));
    const run = await fleet.deploy(path);
    expect(run.code, run.stdout + run.stderr).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    for (const web of WEB) expect(lines[0]).toContain(`on ${web}: upstream app of nginx master`);
    for (const server of spec.upstreams.app.servers)
      expect(lines[0]).toContain(`${server.host}:${other} (alternate of ${server.host}:${server.port})`);
    expect(lines[0]).toContain('not listed there:');
    expect(lines[0]).toContain('nothing started or stopped');
    expect(run.stdout).not.toContain('step-start');
    expect(await recorded()).toEqual(before);
    // Nothing was started at the alternates.
    for (const app of APPS) expect(await isAccepting(fleet.address(app), other)).toBe(false);
  }, 120_000);
});

describe('batches, the canary host and rollback across hosts', () => {
  const deploy = async (...args: string[]) => {
    // Under traffic: the watch judges each new instance's own requests.
    const load = loadThroughAll(fleet);
    const run = await fleet.deploy(fleet.specPath, ...args).finally(() => load.stop());
    expect(run.code, run.stdout + run.stderr).toBe(0);
    return eventsOf(run.stdout);
  };
  const releases = async (web: string) =>
    (
      JSON.parse(await readFile(join(fleet.hosts.host(web).dir, 'etc', 'instances.json'), 'utf8')) as {
        releases?: Record<string, unknown>;
      }
    ).releases;

  it('--batch 2 runs both app hosts together; --canary runs app1 alone first; rollback goes back to the release before, on every nginx host', async () => {
    // app1's round is the slower of the batch: app2's new instance joins the upstream first. The
    // canary below is still app1, the first in the list: each new instance takes its old one's place.
    const slow = join(fleet.hosts.host('app1').dir, 'apps', 'slow-start');
    await writeFile(slow, '');
    const together = await deploy('--version', 'v2', '--batch', '2').finally(() => rm(slow, { force: true }));
    const steps = together.filter((e) => e.type === 'step-start' || e.type === 'step-done');
    const lastOf1 = steps.findLastIndex((e) => e.host === 'app1');
    const firstOf2 = steps.findIndex((e) => e.host === 'app2');
    expect(firstOf2).toBeLessThan(lastOf1);

    const canary = await deploy('--version', 'v3', '--canary', '1');
    const hostsInOrder = canary.filter((e) => e.type === 'step-start').map((e) => e.host);
    expect(hostsInOrder.indexOf('app2')).toBeGreaterThan(hostsInOrder.lastIndexOf('app1'));
    for (const web of WEB) expect(await releases(web)).toEqual({ app: { current: 'v3', previous: 'v2' } });

    const back = await deploy('rollback');
    expect(back.find((e) => e.type === 'plan')).toMatchObject({ plan: { version: 'v2' } });
    for (const web of WEB) expect(await releases(web)).toEqual({ app: { current: 'v2', previous: 'v3' } });
    const moved = await fleet.recorded('web1');
    for (const web of WEB) expect(await fleet.recorded(web)).toEqual(moved);
  }, 300_000);
});

describe('--max-fail across hosts', () => {
  it('a round that fails is put back; with --max-fail 1 the next host still goes, without it the deploy stops there', async () => {
    const marker = join(fleet.hosts.host('app1').dir, 'apps', 'fail-start');
    await writeFile(marker, '');
    try {
      const before = await fleet.recorded('web1');
      const stopped = fleet.startDeploy(fleet.specPath);
      const first = await stopped.done;
      expect(first.code).toBe(1);
      expect(
        eventsOf(first.stdout)
          .filter((e) => e.type === 'step-start')
          .map((e) => e.host),
      ).not.toContain('app2');
      expect(await fleet.recorded('web1')).toEqual(before);

      // Under traffic: app2's round is watched on its new instance's own requests.
      const load = loadThroughAll(fleet);
      const tolerated = await fleet.deploy(fleet.specPath, '--max-fail', '1').finally(() => load.stop());
      expect(tolerated.code).toBe(1);
      const events = eventsOf(tolerated.stdout);
      expect(events.find((e) => e.type === 'abort')).toMatchObject({ host: 'app1', kind: 'start' });
      expect(events.find((e) => e.type === 'abort')!.reason).toContain('start refused on purpose');
      // app1 still on its old address; app2 moved to the other one of its pair, on every nginx host.
      const app1 = before.find((a) => a.startsWith(`${fleet.address('app1')}:`))!;
      const app2 = before.find((a) => a.startsWith(`${fleet.address('app2')}:`))!;
      const app2Port = Number(app2.slice(app2.lastIndexOf(':') + 1));
      const moved = `${fleet.address('app2')}:${fleet.pair.find((p) => p !== app2Port)}`;
      for (const web of WEB) expect(await fleet.recorded(web)).toEqual([app1, moved].sort());
    } finally {
      await rm(marker, { force: true });
    }
  }, 240_000);
});

describe('a start hook over ssh that leaves a process holding its output, and SIGTERM meanwhile', () => {
  it('the start step ends at its bound naming why, the round is put back, exit 1; no ssh connection or socket dir is left; status names an instance no host records', async () => {
    const marker = join(fleet.hosts.host('app1').dir, 'apps', 'hold-output');
    await writeFile(marker, '');
    const tmp = await mkdtemp(join(tmpdir(), 'hook-bound-'));
    try {
      const spec = JSON.parse(await readFile(await fleet.specFor(['web1']), 'utf8'));
      spec.upstreams.app.deploy.readyTimeout = 3;
      const specPath = join(tmp, 'spec.json');
      await writeFile(specPath, JSON.stringify(spec));
      // Before any deploy, nothing is recorded yet: the instances are the first ones, on the pair's first port.
      const first = APPS.map((name) => `${fleet.address(name)}:${fleet.pair[0]}`).sort();
      const recorded = () => fleet.recorded('web1').catch(() => first);
      const before = await recorded();
      // Its own temp dir: where its ssh control sockets' directories go (and must be gone from).
      const deploy = fleet.startDeploy(specPath, { TMPDIR: tmp });
      await deploy.until(/"type":"step-start"[^\n]*"kind":"start"/);
      const signalled = Date.now();
      deploy.kill('SIGTERM');
      const { code, stdout } = await deploy.done;
      // The bound (3 s) and the kill 2 s after it; the 20 s of what holds the output are not waited for.
      expect(Date.now() - signalled).toBeLessThan(15_000);
      expect(code, stdout).toBe(1);
      const abort = eventsOf(stdout).find((e) => e.type === 'abort')!;
      expect(abort, stdout).toMatchObject({ host: 'app1', kind: 'start' });
      expect(abort.reason).toMatch(
        /the start hook for .* was killed after \d+ ms: app1: its output was still open after 3 s \(the bound\)/,
      );
      expect(await recorded()).toEqual(before);
      // The new instance the hook started was stopped by its stop hook: its address refuses again.
      const app1 = before.find((a) => a.startsWith(`${fleet.address('app1')}:`))!;
      const idle = fleet.pair.find((port) => `${fleet.address('app1')}:${port}` !== app1)!;
      expect(await fetchStatus(`http://${fleet.address('app1')}:${idle}/health/ready`)).toBe(0);
      expect((await readdir(tmp)).filter((name) => name.startsWith('proxyops-ssh-'))).toEqual([]);
      const ssh = await execa('pgrep', ['-f', `ControlPath=${tmp}`], { reject: false });
      expect(ssh.stdout).toBe('');

      // What a deploy killed outright leaves: an instance on the idle address no nginx host records.
      await rm(marker, { force: true });
      const [script, , , , dir] = spec.upstreams.app.deploy.start as string[];
      const straying = [fleet.address('app1'), String(idle), dir!];
      const calm = await fleet.proxyops('deploy', 'status', '--spec', specPath);
      expect(calm.code, calm.stdout).toBe(0);
      fleet.hosts.exec('app1', [script!, 'start', ...straying]);
      try {
        expect(await serving(fleet.address('app1'), idle)).toBe(true);
        const status = await fleet.proxyops('deploy', 'status', '--spec', specPath);
        expect(status.code, status.stdout).toBe(1);
        expect(status.stdout).toContain('the nginx hosts that answered agree (web1)');
        expect(status.stdout).toContain(
          `  ${fleet.address('app1')}:${idle} on app1: accepts connections, but no nginx host records it as serving`,
        );
      } finally {
        fleet.hosts.exec('app1', [script!, 'stop', ...straying]);
      }
    } finally {
      await rm(marker, { force: true });
      await rm(tmp, { recursive: true, force: true });
    }
  }, 120_000);
});

/** GET through an nginx host, `times` times: the statuses. */
async function statusesThrough(web: string, times: number): Promise<number[]> {
  const url = `http://${fleet.address(web)}:${fleet.nginxPort}/health/ready`;
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push(await fetchStatus(url));
  return statuses;
}

type Event = Record<string, unknown> & { type: string };
const eventsOf = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Event);

describe.each([
  { how: 'link' as const, lost: 'web2', proxies: WEB },
  { how: 'sshd' as const, lost: 'web3', proxies: ['web1', 'web3'] },
])('an nginx host lost mid-deploy ($how)', ({ how, lost, proxies }) => {
  it(`deploy exits 1 naming ${lost} and the step; the other nginx hosts serve the old instances; status says each host's state`, async () => {
    const others = proxies.filter((web) => web !== lost);
    const before = await fleet.recorded('web1');
    const specPath = await fleet.specFor(proxies);
    const deploy = fleet.startDeploy(specPath);
    await deploy.until(/"type":"step-start"[^\n]*"kind":"watch"/);
    await fleet.hosts.lose(lost, how);
    const { code, stdout } = await deploy.done;
    expect(code, stdout).toBe(1);
    const abort = eventsOf(stdout).find((e) => e.type === 'abort')!;
    expect(abort, stdout).toMatchObject({ host: lost, kind: 'watch', rolledBack: true });
    expect(abort.reason).toMatch(new RegExp(`^${lost}: `));
    // The round was put back: the new instance stopped, the old ones recorded and serving everywhere else.
    for (const web of others) {
      expect(await fleet.recorded(web)).toEqual(before);
      expect(new Set(await statusesThrough(web, 20))).toEqual(new Set([200]));
    }
    // Each app host's idle address of its pair refuses again: the new instance was stopped.
    for (const address of before) {
      const host = address.slice(0, address.lastIndexOf(':'));
      const idle = fleet.pair.find((port) => `${host}:${port}` !== address)!;
      expect(await fetchStatus(`http://${host}:${idle}/health/ready`)).toBe(0);
    }

    const status = await fleet.proxyops('deploy', 'status', '--spec', specPath);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(
      new RegExp(`^${lost}: unreachable: ${lost}: lost or unreachable over ssh`, 'm'),
    );
    for (const web of others)
      expect(status.stdout).toContain(
        `${web}: live v0001; upstream app serves ${before.join(', ')}; no deploy running`,
      );
    for (const address of before)
      expect(status.stdout).toMatch(new RegExp(`^  ${address} on app\\d: ready$`, 'm'));
  }, 240_000);
});

// Last: the lost app host stays lost.
describe('an app host lost mid-round (its link down)', () => {
  it('deploy exits 1 naming app1 and the step; the nginx host records the old instances and answers from the other app host', async () => {
    const specPath = await fleet.specFor(['web1']);
    const before = await fleet.recorded('web1');
    const deploy = fleet.startDeploy(specPath);
    await deploy.until(/"type":"step-start"[^\n]*"kind":"watch"[^\n]*"host":"app1"/);
    await fleet.hosts.lose('app1', 'link');
    const { code, stdout } = await deploy.done;
    expect(code, stdout).toBe(1);
    const abort = eventsOf(stdout).find((e) => e.type === 'abort')!;
    expect(abort, stdout).toMatchObject({ host: 'app1', kind: 'watch' });
    // No round got as far as the old instance's stop: nginx lists the same pairs, nothing refused.
    expect(await fleet.recorded('web1')).toEqual(before);
    // A client that waits out nginx's connect timeout to the lost host gets its answer from app2.
    const url = `http://${fleet.address('web1')}:${fleet.nginxPort}/health/ready`;
    for (let i = 0; i < 6; i++) {
      const answer = await fetch(url, { signal: AbortSignal.timeout(30_000) });
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
    }
  }, 240_000);
});
