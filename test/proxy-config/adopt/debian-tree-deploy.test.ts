import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildDebianTree,
  hashTree,
  snapshotOutsideBlock,
  type DebianTree,
} from '../../support/debian-tree.js';
import { freePort } from '../../support/ports.js';
import { DATABASE_URL } from '../../support/services.js';
import { startSupervisedPairs, type SupervisedPairs } from '../../support/supervised-pairs.mjs';
import { startNoRetryLoad, type NoRetryLoadResult } from '../deploy/no-retry-load.js';
import { adminToken, CLI, runCli, SEED_USER } from '../deploy/stack-harness.js';

/** Two addresses standing for the two app hosts behind the hand-written `upstream app`. */
const HOSTS = ['127.0.0.2', '127.0.0.3'] as const;

describe('deploys behind a hand-written Debian tree: adopted upstream app, its own nginx master, supervisord instances', () => {
  let tree: DebianTree;
  let stack: SupervisedPairs;
  let listenPort: number;
  let spec: string;
  let state: string;
  let auth: Record<string, string>;
  /** Every file's sha256 and the upstream file's lines outside the block, before the adoption. */
  let before: Awaited<ReturnType<typeof snapshotOutsideBlock>>;
  const orderBody = (n: number) =>
    JSON.stringify({ items: [{ productName: `adopted-load-${n}`, quantity: 1, unitPrice: 2.5 }] });

  /** The adoption: `config apply --spec` with the hand-written config. */
  const adopt = () => runCli(['config', 'apply', '--spec', spec, '--target', state]);
  const deploy = (...args: string[]) =>
    runCli(['deploy', ...args, '--spec', spec, '--target', state, '--upstream', 'app']);
  /** What `nginx -T` shows of the running tree (the running master's binary reads the files on disk). */
  const dumped = async () =>
    (await execa('nginx', ['-T', '-p', tree.prefix, '-c', tree.conf, '-e', tree.errorLog])).stdout;
  const serving = async () => (await readFile(join(state, 'instances.json'), 'utf8').catch(() => '')) || null;
  const inState = async () => {
    const text = await serving();
    if (text === null) return HOSTS.map((h) => `${h}:${stack.pairs[h]![0]}`).sort();
    return (
      JSON.parse(text) as { upstreams: { app: Array<{ host: string; port: number; inUpstream: boolean }> } }
    ).upstreams.app
      .filter((i) => i.inUpstream)
      .map((i) => `${i.host}:${i.port}`)
      .sort();
  };
  const load = () =>
    startNoRetryLoad({
      base: `http://127.0.0.1:${listenPort}`,
      headers: auth,
      getPath: `/users/${SEED_USER}`,
      postPath: '/orders',
      postBody: orderBody,
      getConnections: 6,
      postConnections: 3,
      rate: 20,
    });

  beforeAll(async () => {
    stack = await startSupervisedPairs({
      cli: CLI,
      databaseUrl: DATABASE_URL,
      hosts: HOSTS,
      variants: {},
      deploy: { watch: 1.5, readyTimeout: 30, stopTimeout: 30 },
    });
    listenPort = await freePort();
    tree = await buildDebianTree({
      servers: HOSTS.map((host) => ({ host, port: stack.pairs[host]![0] })),
      listenPort,
    });
    await tree.start();
    state = join(tree.root, 'state');
    // The hooks, health check and pairs of supervised-pairs' spec, on the hand-written config instead
    // of rendered servers: each server only its address and alternate (max_fails/fail_timeout are the block's).
    const rendered = JSON.parse(await readFile(stack.writeSpec('app'), 'utf8')) as {
      upstreams: { app: { servers: Array<{ host: string; port: number; alternate: number }> } };
    };
    const app = {
      ...rendered.upstreams.app,
      servers: rendered.upstreams.app.servers.map(({ host, port, alternate }) => ({ host, port, alternate })),
    };
    spec = join(tree.root, 'spec.json');
    await writeFile(
      spec,
      JSON.stringify({ version: 1, nginx: { conf: tree.conf }, upstreams: { app } }, null, 2),
    );
    auth = { authorization: `Bearer ${await adminToken()}`, accept: 'application/json' };
    before = await snapshotOutsideBlock(tree);
    const adopted = await adopt();
    expect(adopted.exitCode, adopted.stderr).toBe(0);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await tree?.remove();
  }, 60_000);

  it('the adoption changed no byte outside upstream app { } and lists each alternate; a second config apply is a no-op', async () => {
    expect(await snapshotOutsideBlock(tree)).toEqual(before);
    const text = await dumped();
    for (const host of HOSTS) expect(text).toContain(`server ${host}:${stack.pairs[host]![1]} `);
    const files = await hashTree(tree.dir);
    const pids = await tree.pids();
    const again = await adopt();
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^unchanged: /);
    expect(await hashTree(tree.dir)).toEqual(files);
    expect(await tree.pids()).toEqual(pids);
  }, 60_000);

  it('deploy plan says every instance takes the alternate path behind the hand-written config', async () => {
    const run = await deploy('plan');
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain(`behind the hand-written config ${tree.conf}`);
    for (const host of HOSTS) {
      const [a, b] = stack.pairs[host]!;
      expect(run.stdout).toContain(`${host}:${a}: alternate path (the new instance on ${host}:${b}`);
    }
    expect(run.stdout).not.toContain('reload path');
    expect(run.stdout).not.toContain('refused now');
  }, 60_000);

  it('two rolling deploys under GET and POST keep-alive load that never retries: 0 failed, 0 non-2xx, every POST stored, master and workers unchanged, no file touched', async () => {
    const pids = await tree.pids();
    const files = await hashTree(tree.dir);
    const running = load();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const one = await deploy('--json');
    const afterOne = await inState();
    const two = await deploy('--json');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const result = await running.stop();
    expect(one.exitCode, one.stdout + one.stderr).toBe(0);
    expect(two.exitCode, two.stdout + two.stderr).toBe(0);
    await expectClean(result);
    // Blue to green and back: each deploy moved every instance to the other address of its pair.
    expect(afterOne).toEqual(HOSTS.map((h) => `${h}:${stack.pairs[h]![1]}`).sort());
    expect(await inState()).toEqual(HOSTS.map((h) => `${h}:${stack.pairs[h]![0]}`).sort());
    // The watch read the tree's own log, in its own format, where the upstream is served.
    const watched = one.events.filter((e) => e.type === 'status');
    expect(watched.length).toBeGreaterThan(0);
    expect(watched.every((e) => ((e.newInstance as { total: number } | undefined)?.total ?? 0) > 0)).toBe(
      true,
    );
    expect(await tree.pids()).toEqual(pids);
    expect(await hashTree(tree.dir)).toEqual(files);
  }, 240_000);

  it('a hand edit inside the managed block is drift: the next deploy names the line, exits 2 and changes nothing', async () => {
    const text = await readFile(tree.upstreamFile, 'utf8');
    const [, alt] = stack.pairs['127.0.0.3']!;
    const edited = text.replace(
      new RegExp(`(server\\s+127\\.0\\.0\\.3:${alt}\\s+)max_fails=1`),
      '$1max_fails=5',
    );
    expect(edited).not.toBe(text);
    await writeFile(tree.upstreamFile, edited);
    try {
      const files = await hashTree(tree.dir);
      const pids = await tree.pids();
      const recorded = await serving();
      // Each program's name and state (RUNNING, STOPPED), without its uptime.
      const programs = () =>
        stack
          .supervisorctl('status')
          .split('\n')
          .map((line) => line.split(/\s+/).slice(0, 2).join(' '));
      const supervised = programs();
      const run = await deploy('--json');
      expect(run.exitCode, run.stdout + run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain('the lines proxyops manages were edited by hand');
      // --json says it too: the plan event with `refused`, as deploy plan --json carries it.
      expect(run.events).toEqual([
        expect.objectContaining({ type: 'plan', refused: expect.stringContaining('max_fails=5') }),
      ]);
      expect(run.stderr).toContain('max_fails=5');
      expect(await hashTree(tree.dir)).toEqual(files);
      expect(await tree.pids()).toEqual(pids);
      expect(await serving()).toEqual(recorded);
      expect(programs()).toEqual(supervised);
    } finally {
      await writeFile(tree.upstreamFile, text);
    }
  }, 60_000);

  it("a hand edit elsewhere (a new location) and the user's own nginx -s reload: the next deploy (both pairs in one batch) still works", async () => {
    const text = await readFile(tree.upstreamFile, 'utf8');
    await writeFile(
      tree.upstreamFile,
      text.replace('\t# location /admin', '\tlocation = /ping { return 204; }\n\n\t# location /admin'),
    );
    const old = (await tree.pids()).workers;
    await execa('nginx', ['-s', 'reload', '-p', tree.prefix, '-c', tree.conf, '-e', tree.errorLog]);
    await expect
      .poll(async () => (await fetch(`http://127.0.0.1:${listenPort}/ping`)).status, { timeout: 20_000 })
      .toBe(204);
    // The workers of before the user's reload finish their connections and leave in their own time
    // (CI saw two still there): the ones the deploy must not replace are the new ones alone.
    await expect
      .poll(async () => (await tree.pids()).workers.filter((pid) => old.includes(pid)), { timeout: 20_000 })
      .toEqual([]);
    const pids = await tree.pids();
    const running = load();
    // Both pairs at once: the alternate path changes no config, so rounds may run together.
    const run = await deploy('--json', '--batch', '2');
    const result = await running.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    await expectClean(result);
    expect(await tree.pids()).toEqual(pids);
    // The second round started before the first one ended.
    const steps = run.events.filter((e) => e.type === 'step-start' || e.type === 'step-done');
    const roundOf = (e: Record<string, unknown>) => (e.step as { round: number }).round;
    const secondStarts = steps.findIndex((e) => roundOf(e) === 2);
    const firstEnds = steps.findLastIndex((e) => roundOf(e) === 1);
    expect(secondStarts).toBeGreaterThanOrEqual(0);
    expect(secondStarts).toBeLessThan(firstEnds);
  }, 180_000);

  it('a spec server without an alternate is refused, naming it and why, with nothing changed', async () => {
    const written = JSON.parse(await readFile(spec, 'utf8')) as {
      upstreams: { app: { servers: Array<Record<string, unknown>> } };
    };
    delete written.upstreams.app.servers[1]!.alternate;
    const lone = join(tree.root, 'spec-lone.json');
    await writeFile(lone, JSON.stringify(written));
    const files = await hashTree(tree.dir);
    const recorded = await serving();
    const plan = await runCli(['deploy', 'plan', '--spec', lone, '--target', state]);
    expect(plan.exitCode, plan.stderr).toBe(0);
    const [lead] = await inState().then((all) => all.filter((a) => a.startsWith('127.0.0.3:')));
    expect(plan.stdout).toContain(`${lead}: refused: no alternate path`);
    const run = await runCli(['deploy', '--spec', lone, '--target', state]);
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(
      'behind an adopted config a deploy moves traffic only between blue/green pairs',
    );
    // The fix names the server as the spec lists it, even when its old alternate serves now.
    const listed = written.upstreams.app.servers[1]!;
    const named = `${String(listed.host)}:${String(listed.port)}`;
    expect(run.stderr).toContain(
      lead === named
        ? `give ${named} an alternate`
        : `give the spec's server ${named} (${lead} serves in its place now) an alternate`,
    );
    expect(await hashTree(tree.dir)).toEqual(files);
    expect(await serving()).toEqual(recorded);
  }, 60_000);

  it('--replace/--with hands one instance over to its pair, which the caller started, with no reload', async () => {
    const host = '127.0.0.2';
    const [serving] = (await inState()).filter((a) => a.startsWith(`${host}:`));
    const old = Number(serving!.split(':')[1]);
    const fresh = stack.pairs[host]!.find((p) => p !== old)!;
    expect(stack.supervisorctl('start', `app-${host}-${fresh}`)).toMatch(/started/);
    const pids = await tree.pids();
    const running = load();
    const run = await deploy('--replace', `${host}:${old}`, '--with', `${host}:${fresh}`);
    const result = await running.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    await expectClean(result);
    expect(await inState()).toContain(`${host}:${fresh}`);
    expect(await inState()).not.toContain(`${host}:${old}`);
    expect(stack.supervisorctl('status', `app-${host}-${old}`)).toMatch(/STOPPED/);
    expect(await tree.pids()).toEqual(pids);
  }, 120_000);

  /** Every order a 2xx POST reported is in PostgreSQL, and nothing failed. */
  async function expectClean(result: NoRetryLoadResult) {
    const summary = JSON.stringify({ ...result, createdIds: result.createdIds.length }, null, 1);
    expect(result.get, summary).toMatchObject({ errors: 0, non2xx: 0 });
    expect(result.post, summary).toMatchObject({ errors: 0, non2xx: 0 });
    expect(result.get.total).toBeGreaterThan(100);
    expect(result.post.total).toBeGreaterThan(50);
    expect(result.createdIds).toHaveLength(result.post.total);
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
  }
});
