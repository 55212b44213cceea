import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL } from '../../support/services.js';
import { startLoad } from './load.js';
import { startNoRetryLoad } from './no-retry-load.js';
import {
  adminToken,
  CLI,
  isAlive,
  runCli,
  SEED_USER,
  startStack,
  stopStack,
  type StackProcess,
} from './stack-harness.js';

/** nginx's master and its workers: a reload replaces the workers, a slot swap does not. */
async function nginxPids(pidFile: string): Promise<number[]> {
  const master = Number((await readFile(pidFile, 'utf8')).trim());
  const { stdout } = await execa('ps', ['-o', 'pid=', '--ppid', String(master)]);
  return [master, ...stdout.split('\n').filter(Boolean).map(Number)].sort();
}

describe('deploy behind unix-socket slots, on PostgreSQL, through the real nginx', () => {
  let stack: StackProcess;
  let auth: Record<string, string>;
  const body = (n: number) =>
    JSON.stringify({ items: [{ productName: `slot-load-${n}`, quantity: 1, unitPrice: 1.5 }] });

  beforeAll(async () => {
    // The watch at up's default (3 s): long enough to see a release failing 5 % of its requests.
    stack = await startStack(['--instances', '2'], { DATABASE_URL });
    auth = { authorization: `Bearer ${await adminToken()}`, accept: 'application/json' };
  }, 120_000);
  afterAll(async () => {
    await stopStack(stack);
  });

  const slotPids = async () => (await stack.state()).upstreams.api!.map((i) => i.pid!);

  it('deploy plan says every instance takes the slot path: no config change, no reload', async () => {
    const run = await runCli(['deploy', 'plan', '--dir', stack.dir, '--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    const plan = run.events[0]!.plan as { paths: string[]; steps: Array<{ kind: string }> };
    expect(plan.paths).toEqual(['slot', 'slot']);
    expect(plan.steps.map((s) => s.kind)).not.toContain('add');
    expect(plan.steps.map((s) => s.kind)).not.toContain('remove');
    const text = await runCli(['deploy', 'plan', '--dir', stack.dir]);
    expect(text.stdout).toMatch(/slot-0\.sock: slot path .*no nginx reload/);
  }, 60_000);

  it('the access log names the process that answered (ui=, its X-Proxyops-Instance), which the client never sees', async () => {
    const names = (await stack.state()).upstreams.api!.map(
      (i) => /([^/]+)\.sock$/.exec((i as { socket?: string }).socket!)![1],
    );
    const accessLog = join(stack.dir, 'logs', 'access.log');
    for (let i = 0; i < 10; i++) {
      const rid = `instance-field-${i}`;
      const answer = await fetch(`${stack.url}/users/${SEED_USER}`, {
        headers: { ...auth, 'x-request-id': rid },
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-proxyops-instance')).toBeNull();
      await answer.arrayBuffer();
      // nginx writes the line after the response has gone out: wait for it rather than race it.
      const lineOf = async () =>
        (await readFile(accessLog, 'utf8')).split('\n').find((l) => l.includes(`rid="${rid}"`));
      await expect.poll(lineOf, { timeout: 10_000 }).toBeDefined();
      const logged = await lineOf();
      expect(logged, rid).toMatch(/ ua="unix:[^"]+\/slot-\d\.sock" /);
      expect(names).toContain(/ ui="([^"]+)"$/.exec(logged!)![1]);
    }
  }, 60_000);

  it('two rolling deploys in a row under GET and POST keep-alive load that never retries: 0 failed, 0 non-2xx, every POST stored', async () => {
    const state = await stack.state();
    const nginxBefore = await nginxPids(state.stack!.nginxPidFile);
    const configBefore = await readFile(join(stack.dir, 'config', 'current', 'nginx.conf'), 'utf8');
    const first = await slotPids();
    const load = startNoRetryLoad({
      base: stack.url,
      headers: auth,
      getPath: `/users/${SEED_USER}`,
      postPath: '/orders',
      postBody: body,
      getConnections: 6,
      postConnections: 3,
      rate: 20,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const deploy = ['deploy', '--dir', stack.dir, '--json'];
    const one = await runCli(deploy);
    const second = await slotPids();
    const two = await runCli(deploy);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const result = await load.stop();
    expect(one.exitCode, one.stdout + one.stderr).toBe(0);
    expect(two.exitCode, two.stdout + two.stderr).toBe(0);
    const summary = JSON.stringify({ ...result, createdIds: result.createdIds.length }, null, 1);
    expect(result.get, summary).toMatchObject({ errors: 0, non2xx: 0 });
    expect(result.post, summary).toMatchObject({ errors: 0, non2xx: 0 });
    expect(result.get.total).toBeGreaterThan(300);
    expect(result.post.total).toBeGreaterThan(100);
    expect(result.createdIds).toHaveLength(result.post.total);

    // Every order a 2xx POST reported is in the database.
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(
        'SELECT count(*) AS n FROM orders WHERE id = ANY($1::uuid[])',
        [result.createdIds],
      );
      expect(Number(rows[0]!.n)).toBe(result.createdIds.length);
    } finally {
      await client.end();
    }

    // Replaced twice, without a reload: nginx's workers and config are the ones from before.
    const third = await slotPids();
    for (const pid of [...first, ...second]) expect(third).not.toContain(pid);
    for (const pid of [...first, ...second]) expect(await isAlive(pid), `pid ${pid}`).toBe(false);
    expect(await nginxPids(state.stack!.nginxPidFile)).toEqual(nginxBefore);
    expect(await readFile(join(stack.dir, 'config', 'current', 'nginx.conf'), 'utf8')).toBe(configBefore);
  }, 180_000);

  it('deploy --env PROXYOPS_RATE_LIMIT=1 under load: the 4xx gate rolls it back (exit 1), the stack answers 2xx, the settings given to up stay', async () => {
    const before = await slotPids();
    const rateLimitOf = async (pid: number) =>
      /(?:^|\0)PROXYOPS_RATE_LIMIT=([^\0]*)/.exec(await readFile(`/proc/${pid}/environ`, 'latin1'))?.[1];
    for (const pid of before) expect(await rateLimitOf(pid)).toBe('10000000');
    const load = startNoRetryLoad({
      base: stack.url,
      headers: auth,
      getPath: `/users/${SEED_USER}`,
      postPath: '/orders',
      postBody: body,
      getConnections: 4,
      postConnections: 1,
      rate: 30,
    });
    const plan = await runCli(['deploy', 'plan', '--dir', stack.dir, '--env', 'PROXYOPS_RATE_LIMIT=1']);
    expect(plan.stdout).toContain('setting PROXYOPS_RATE_LIMIT=1 (now 10000000)');
    // The stack's other settings go to the new instances as recorded, and the plan says so; never the
    // database's URL, which may hold a password.
    expect(plan.stdout).toMatch(
      /keeping PROXYOPS_RATE_LIMIT_PREFIX=proxyops:rate:[0-9a-f]{12}: for the new instances/,
    );
    expect(plan.stdout).not.toMatch(/keeping PROXYOPS_RATE_LIMIT=|DATABASE_URL/);
    expect(plan.stdout).not.toContain(DATABASE_URL);
    expect((await runCli(['deploy', 'plan', '--dir', stack.dir])).stdout).toContain(
      'keeping PROXYOPS_RATE_LIMIT=10000000 for the new instances',
    );
    const run = await runCli(['deploy', '--dir', stack.dir, '--env', 'PROXYOPS_RATE_LIMIT=1', '--json']);
    await load.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(1);
    const status = run.events.find((e) => e.type === 'status' && e.gate) as unknown as {
      gate: { gate: string; text: string };
      newInstance: { instance: string; separated: boolean; total: number; fourxx: Record<string, number> };
    };
    expect(status.gate.gate).toBe('4xx');
    expect(status.gate.text).toMatch(/429×\d+/);
    // The gate judged the new process's own requests, told apart by the name it logs behind the slot.
    const fresh = /started on \S+\/(slot-0\.[0-9a-f]+)\.sock/.exec(
      run.events.map((e) => String(e.outcome ?? '')).join('\n'),
    )![1];
    expect(status.newInstance).toMatchObject({ instance: fresh, separated: true });
    // One request per window passes the limit of 1; every other one the new process answered got 429.
    expect(status.newInstance.fourxx['429']).toBeGreaterThanOrEqual(status.newInstance.total - 1);
    expect(status.newInstance.total).toBeGreaterThan(0);
    expect(run.events.find((e) => e.type === 'abort')).toMatchObject({ rolledBack: true });
    expect(await slotPids()).toEqual(before);
    expect((await stack.state()).instanceEnv!.PROXYOPS_RATE_LIMIT).toBe('10000000');
    // Its own rate-limit counters in Redis: other stacks on the same Redis do not count against it.
    expect((await stack.state()).instanceEnv!.PROXYOPS_RATE_LIMIT_PREFIX).toMatch(
      /^proxyops:rate:[0-9a-f]{12}:$/,
    );
    for (let i = 0; i < 20; i++)
      expect((await fetch(`${stack.url}/users/${SEED_USER}`, { headers: auth })).status).toBe(200);

    // A deploy run from a shell with another rate limit still starts instances with the stack's
    // (under traffic, so that the watch has the new instance's requests to judge).
    const traffic = startLoad(`${stack.url}/users/${SEED_USER}`, auth, { rate: 100 });
    const shell = await execa('node', [CLI, 'deploy', '--dir', stack.dir], {
      reject: false,
      env: { PROXYOPS_RATE_LIMIT: '3' },
    });
    await traffic.stop();
    expect(shell.exitCode, shell.stdout + shell.stderr).toBe(0);
    for (const pid of await slotPids()) expect(await rateLimitOf(pid)).toBe('10000000');
    for (let i = 0; i < 20; i++)
      expect((await fetch(`${stack.url}/users/${SEED_USER}`, { headers: auth })).status).toBe(200);
  }, 180_000);

  for (const [permille, what] of [
    [1000, 'every request'],
    [50, '5 % of its requests'],
  ] as const)
    it(`deploy --env PROXYOPS_TEST_ERROR_PERMILLE=${permille} (500 to ${what}) under GET and POST load that never retries, with the default gates: rolled back, exit 1, and the way back fails no request`, async () => {
      const before = await slotPids();
      const accessLog = join(stack.dir, 'logs', 'access.log');
      const logFrom = (await stat(accessLog)).size;
      const load = startNoRetryLoad({
        base: stack.url,
        headers: auth,
        getPath: `/users/${SEED_USER}`,
        postPath: '/orders',
        postBody: body,
        getConnections: 6,
        postConnections: 3,
        rate: 40,
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      const env = `PROXYOPS_TEST_ERROR_PERMILLE=${permille}`;
      const run = await runCli(['deploy', '--dir', stack.dir, '--env', env, '--json']);
      // The load goes on after the rollback: the old processes answer all of it.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const result = await load.stop();
      const summary = JSON.stringify(
        { ...result, createdIds: result.createdIds.length, run: run.stdout },
        null,
        1,
      );
      expect(run.exitCode, summary).toBe(1);
      const status = run.events.find((e) => e.type === 'status' && e.gate) as unknown as {
        gate: { gate: string };
        newInstance: { instance: string };
      };
      expect(status.gate.gate, summary).toBe('5xx');
      expect(run.events.find((e) => e.type === 'abort')).toMatchObject({ rolledBack: true });
      expect(await slotPids()).toEqual(before);
      // Not one request failed: no connection error, and every answer that is not a 2xx is a 500
      // the bad process wrote itself (the name it logs), none a 502 of nginx's.
      expect(result.get.errors + result.post.errors, summary).toBe(0);
      expect(
        Object.keys(result.statuses).filter((s) => !/^2/.test(s) && s !== '500'),
        summary,
      ).toEqual([]);
      const logged = (await readFile(accessLog)).subarray(logFrom).toString('utf8').split('\n');
      const fiveHundreds = logged.filter((l) => /" 500 \d+ "/.test(l));
      expect(fiveHundreds.length).toBe(result.statuses['500'] ?? 0);
      for (const line of fiveHundreds) expect(line).toContain(` ui="${status.newInstance.instance}"`);
      for (let i = 0; i < 20; i++)
        expect((await fetch(`${stack.url}/users/${SEED_USER}`, { headers: auth })).status).toBe(200);
    }, 120_000);

  it('kill -9 of the new instance during the watch: rolled back, the old instance still serving', async () => {
    const before = await slotPids();
    const spec = JSON.parse(await readFile((await stack.state()).stack!.specPath, 'utf8'));
    spec.upstreams.api.deploy.watch = 60;
    const specPath = join(stack.dir, 'long-watch.json');
    await writeFile(specPath, JSON.stringify(spec));
    const run = execa(
      'node',
      [CLI, 'deploy', '--spec', specPath, '--target', join(stack.dir, 'config'), '--json'],
      { reject: false, buffer: false, env: { PROXYOPS_RATE_LIMIT: '10000000' } },
    );
    let out = '';
    run.stdout!.setEncoding('utf8');
    run.stdout!.on('data', (chunk: string) => (out += chunk));
    await expect.poll(() => out, { timeout: 60_000 }).toMatch(/"type":"step-done","step":\{"index":3,/);
    const fresh = Number(/started on \S+ \(pid (\d+)/.exec(out)![1]);
    process.kill(fresh, 'SIGKILL');
    expect((await run).exitCode, out).toBe(1);
    const events = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const abort = events.find((e) => e.type === 'abort')!;
    expect(abort).toMatchObject({ rolledBack: true });
    expect(String(abort.reason)).toMatch(/exited during the watch/);
    expect(await slotPids()).toEqual(before);
    for (const pid of before) expect(await isAlive(pid)).toBe(true);
    for (let i = 0; i < 20; i++)
      expect((await fetch(`${stack.url}/users/${SEED_USER}`, { headers: auth })).status).toBe(200);
  }, 120_000);
});
