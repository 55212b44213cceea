import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAccepting } from '../../../proxy-config/shell/process/tcp-accepting.js';
import { buildDebianTree, hashTree } from '../../support/debian-tree.js';
import { freePort } from '../../support/ports.js';
import { startTestHosts, type TestHosts } from '../../support/ssh-hosts.js';
import { APP_SCRIPT, serving, storedCount } from '../deploy/fleet-harness.js';
import { startNoRetryLoad } from '../deploy/no-retry-load.js';
import { adminToken, CLI, SEED_USER } from '../deploy/stack-harness.js';

/**
 * A deploy across two nginx hosts behind an adopted upstream: each nginx host (web1, web2) runs its
 * own hand-written Debian tree whose `upstream app` lists the API instances of two app hosts (app1,
 * app2), adopted on both by `config apply`; each app host runs a blue/green pair of ports.
 */
const WEB = ['web1', 'web2'] as const;
const APPS = ['app1', 'app2'] as const;

let hosts: TestHosts;
let mp: string;
let nginxPort: number;
let pair: [number, number];
let spec: string;
let auth: Record<string, string>;

const address = (name: string) => hosts.host(name).address;
const treeOf = (name: string) => join(hosts.host(name).dir, 'etc', 'nginx');
const siteOf = (name: string) => join(treeOf(name), 'sites-available', 'app');

async function proxyops(...args: string[]) {
  const result = await execa('node', [CLI, ...args], {
    reject: false,
    timeout: 240_000,
    env: { ...hosts.env, DATABASE_URL: '' },
  });
  return { code: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

const deploy = (...args: string[]) =>
  proxyops('deploy', '--spec', spec, '--dir', join(hosts.root, 'here'), '--json', ...args);

/** The master's pid and its workers', on the host. */
function pidsOf(name: string): { master: number; workers: number[] } {
  const out = hosts.exec(name, ['sh', '-c', `p=$(cat ${mp}/run/nginx.pid); echo $p; pgrep -P $p`]);
  const [master, ...workers] = out.trim().split('\n').map(Number);
  return { master: master!, workers: workers.sort((a, b) => a - b) };
}

/** Every file of both trees (sha256) and both nginx hosts' masters and workers. */
async function snapshot(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of WEB) {
    out[`${name} files`] = await hashTree(treeOf(name));
    out[`${name} processes`] = pidsOf(name);
  }
  return out;
}

/** Reloads the host's nginx onto its tree as it is now; resolves once only the new workers run. */
async function reload(name: string): Promise<void> {
  // Files written within a clock tick of the new workers' start would count as not loaded.
  await sleep(100);
  const old = pidsOf(name).workers;
  hosts.exec(name, ['sh', '-c', `kill -HUP $(cat ${mp}/run/nginx.pid)`]);
  for (let i = 0; i < 200; i++) {
    const { workers } = pidsOf(name);
    if (workers.length === 1 && !old.includes(workers[0]!)) return;
    await sleep(50);
  }
  throw new Error(`nginx on ${name} did not reload`);
}

/** The instances an nginx host records, `HOST:PORT` sorted (none before the first deploy). */
async function recorded(web: string): Promise<string[]> {
  const text = await readFile(join(hosts.host(web).dir, 'state', 'instances.json'), 'utf8').catch(
    () => undefined,
  );
  if (text === undefined) return [];
  const state = JSON.parse(text) as {
    upstreams: { app: Array<{ host: string; port: number; inUpstream: boolean }> };
  };
  return state.upstreams.app
    .filter((i) => i.inUpstream)
    .map((i) => `${i.host}:${i.port}`)
    .sort();
}

/**
 * Lays the hand-written tree on an nginx host (paths rewritten to how the host sees them, listening
 * on every address of the host so this machine's load reaches it) and starts its master there.
 */
async function layTree(name: string): Promise<void> {
  const built = await buildDebianTree({
    servers: APPS.map((app) => ({ host: address(app), port: pair[0] })),
    listenPort: nginxPort,
    workers: 1,
  });
  const past = new Date(Date.now() - 60_000);
  const walk = async (from: string): Promise<void> => {
    for (const entry of await readdir(from)) {
      const path = join(from, entry);
      const to = join(hosts.host(name).dir, relative(built.root, path));
      const stats = await lstat(path);
      if (stats.isSymbolicLink()) await symlink((await readlink(path)).replaceAll(built.root, mp), to);
      else if (stats.isDirectory()) {
        await mkdir(to, { recursive: true, mode: 0o755 });
        await walk(path);
      } else {
        const text = (await readFile(path, 'utf8'))
          .replaceAll(built.root, mp)
          .replaceAll(`listen 127.0.0.1:${nginxPort};`, `listen ${nginxPort};`);
        await writeFile(to, text, { mode: 0o644 });
        await utimes(to, past, past);
      }
    }
  };
  await walk(built.root);
  await built.remove();
  hosts.exec(name, [
    'nginx',
    '-p',
    `${mp}/`,
    '-c',
    `${mp}/etc/nginx/nginx.conf`,
    '-e',
    `${mp}/log/nginx/error.log`,
  ]);
}

beforeAll(async () => {
  hosts = await startTestHosts([...WEB, ...APPS], { trusted: true, routed: true });
  mp = hosts.host('web1').mountPoint;
  nginxPort = await freePort();
  const first = await freePort();
  let second = await freePort();
  while (second === first) second = await freePort();
  pair = [first, second];
  const script = join(hosts.root, 'app.sh');
  await writeFile(script, APP_SCRIPT);
  await chmod(script, 0o755);
  for (const name of APPS) {
    await mkdir(join(hosts.host(name).dir, 'apps'), { recursive: true, mode: 0o755 });
    // The first instances, started as their owner would, one at a time (the first one migrates).
    hosts.exec(name, [script, 'start', address(name), String(pair[0]), `${mp}/apps`]);
    expect(await serving(address(name), pair[0])).toBe(true);
  }
  for (const name of WEB) await layTree(name);
  const hook = (action: string) => [script, action, '{host}', '{port}', `${mp}/apps`];
  spec = join(hosts.root, 'adopted-fleet.json');
  await writeFile(
    spec,
    JSON.stringify({
      version: 1,
      nginx: { conf: `${mp}/etc/nginx/nginx.conf`, pidFile: `${mp}/run/nginx.pid` },
      upstreams: {
        app: {
          // No maxFails/failTimeout: the deploy times the alternate path by the blocks' (1 and 1s).
          servers: APPS.map((name) => ({
            host: address(name),
            port: pair[0],
            alternate: pair[1],
            ssh: name,
          })),
          healthCheck: { interval: 0.5, failureThreshold: 2, margin: 0.5 },
          deploy: { watch: 1.5, readyTimeout: 30, stopTimeout: 15, start: hook('start'), stop: hook('stop') },
        },
      },
      proxies: WEB.map((ssh) => ({ ssh, target: `${mp}/state` })),
    }),
  );
  const adopted = await proxyops('config', 'apply', '--spec', spec);
  expect(adopted.code, adopted.stderr).toBe(0);
  auth = { authorization: `Bearer ${await adminToken()}`, accept: 'application/json' };
}, 180_000);

afterAll(async () => {
  await hosts?.teardown();
}, 60_000);

describe('a deploy across two nginx hosts behind an adopted upstream', () => {
  it("a hand edit inside the managed lines on web2: refused before anything starts, one line naming web2's drift, exit 2, nothing changed", async () => {
    const site = siteOf('web2');
    const text = await readFile(site, 'utf8');
    await writeFile(site, text.replace('keepalive 16;', 'keepalive 32;'));
    try {
      const before = await snapshot();
      const instances = await Promise.all(WEB.map(recorded));
      const run = await deploy();
      expect(run.code, run.stdout + run.stderr).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines, run.stderr).toEqual([
        expect.stringMatching(
          /^proxyops: web2: the lines proxyops manages were edited by hand .*keepalive 32;/,
        ),
        'proxyops: nothing started or stopped on any host',
      ]);
      // And how to load them once put back, with web2's own master (whose pid only web2 knows).
      expect(lines[0]).toMatch(
        new RegExp(
          `, then load them with: \\S*nginx -t -p \\S+/ -c ${mp}/etc/nginx/nginx\\.conf && kill -HUP ${pidsOf('web2').master} `,
        ),
      );
      expect(run.stdout).not.toContain('step-start');
      // deploy plan looks at every host as the deploy does before acting (no lock, nothing changed).
      const plan = await deploy('plan');
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      expect((JSON.parse(plan.stdout) as { refused?: string }).refused).toMatch(
        /^web2: the lines proxyops manages were edited by hand .*keepalive 32;/,
      );
      expect(await snapshot()).toEqual(before);
      expect(await Promise.all(WEB.map(recorded))).toEqual(instances);
      for (const app of APPS) expect(await isAccepting(address(app), pair[1])).toBe(false);
    } finally {
      await writeFile(site, text);
    }
  }, 120_000);

  it("web1's state dir without its adoption record (its tree adopted): refused before anything starts, naming web1's state dir, not an apply that would refuse, exit 2", async () => {
    const record = join(hosts.host('web1').dir, 'state', 'adoption.json');
    await rename(record, `${record}.away`);
    try {
      const before = await snapshot();
      const run = await deploy();
      expect(run.code, run.stdout + run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^proxyops: web1: upstream app of ${mp}/etc/nginx/nginx\\.conf: ${mp}/state/adoption\\.json does not exist, but \\S+:\\d+.* proxyops added .*: ${mp}/state is likely not the state directory of that adoption \\(check --target, nginx\\.state, or the host's target under proxies\\)$`,
          ),
        ),
        'proxyops: nothing started or stopped on any host',
      ]);
      expect(run.stderr).not.toContain('adopt it first');
      expect(run.stdout).not.toContain('step-start');
      expect(await snapshot()).toEqual(before);
    } finally {
      await rename(`${record}.away`, record);
    }
  }, 120_000);

  it("web2 writes the upstream's log in another log_format than web1: deploy refused in one line naming both hosts and formats, exit 2, nothing changed; deploy plan prints the plan with that refusal", async () => {
    const site = siteOf('web2');
    const text = await readFile(site, 'utf8');
    const format = join(treeOf('web2'), 'conf.d', 'upstream-log.conf');
    // The fields the watch needs, in another order: read with web1's format, web2's lines would be misread.
    await writeFile(
      format,
      `log_format upstreams2 'ua="$upstream_addr" us="$upstream_status" $status rt=$request_time "$request" $remote_addr [$time_local]';\n`,
    );
    await writeFile(site, text.replace(/(app\.access\.log) upstreamlog;/, '$1 upstreams2;'));
    await reload('web2');
    try {
      const before = await snapshot();
      const instances = await Promise.all(WEB.map(recorded));
      const refusal = new RegExp(
        `^proxyops: the deploy watch cannot judge the new instance: the nginx hosts write the upstream's access log in 2 formats \\(web1: log_format upstreamlog at ${mp}/etc/nginx/sites-enabled/app:\\d+ to ${mp}/log/nginx/app\\.access\\.log; web2: log_format upstreams2 at ${mp}/etc/nginx/sites-enabled/app:\\d+ to ${mp}/log/nginx/app\\.access\\.log\\); .*write that log in one log_format on every nginx host`,
      );
      const run = await deploy();
      expect(run.code, run.stdout + run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n'), run.stderr).toEqual([expect.stringMatching(refusal)]);
      // --json says why nothing started, naming the hosts too.
      expect(run.stdout).toMatch(
        /"type":"plan","refused":"the deploy watch cannot judge .*web2: log_format upstreams2/,
      );
      expect(run.stdout).not.toContain('step-start');
      // deploy plan reads every host's tree as the deploy does: the plan, and the same refusal in
      // `refused`, exit 0 (as for a live nginx that differs).
      const plan = await deploy('plan');
      expect(plan.code, plan.stdout + plan.stderr).toBe(0);
      const planned = JSON.parse(plan.stdout.trim()) as { plan?: unknown; refused?: string };
      expect(planned.plan).toBeDefined();
      expect(planned.refused?.split('\n').map((line) => `proxyops: ${line}`)).toEqual([
        expect.stringMatching(refusal),
      ]);
      expect(await snapshot()).toEqual(before);
      expect(await Promise.all(WEB.map(recorded))).toEqual(instances);
      for (const app of APPS) expect(await isAccepting(address(app), pair[1])).toBe(false);
    } finally {
      await writeFile(site, text);
      await rm(format);
      await reload('web2');
    }
  }, 120_000);

  it('rolls both app hosts under a load that never retries through both nginx hosts: 0 failed, every 2xx POST stored, no reload, no file changed', async () => {
    const before = await snapshot();
    const loads = WEB.map((web) =>
      startNoRetryLoad({
        base: `http://${address(web)}:${nginxPort}`,
        headers: auth,
        getPath: `/users/${SEED_USER}`,
        postPath: '/orders',
        postBody: (n) =>
          JSON.stringify({ items: [{ productName: `adopted-${web}-${n}`, quantity: 1, unitPrice: 2.5 }] }),
        getConnections: 3,
        postConnections: 2,
        rate: 20,
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const run = await deploy();
    const results = await Promise.all(loads.map((l) => l.stop()));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    for (const result of results) {
      const summary = JSON.stringify({ ...result, createdIds: result.createdIds.length });
      expect(result.get, summary).toMatchObject({ errors: 0, non2xx: 0 });
      expect(result.post, summary).toMatchObject({ errors: 0, non2xx: 0 });
      expect(result.get.total).toBeGreaterThan(100);
      expect(result.post.total).toBeGreaterThan(50);
      expect(await storedCount(result.createdIds)).toBe(result.createdIds.length);
    }
    // The alternate path: no nginx host reloaded, no file of either tree changed.
    expect(await snapshot()).toEqual(before);
    const moved = APPS.map((name) => `${address(name)}:${pair[1]}`).sort();
    for (const web of WEB) expect(await recorded(web)).toEqual(moved);
  }, 240_000);
});
