import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalNginx, type NginxTarget } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { reachableCheckout } from '../../support/checkout-copy.js';
import { startAppliedNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startNoRetryLoad } from '../deploy/no-retry-load.js';
import {
  adminToken,
  CLI,
  runCli,
  SEED_USER,
  startStack,
  stopStack,
  type StackProcess,
} from '../deploy/stack-harness.js';

/**
 * `proxyops up` where people run it: below a directory only its owner may traverse (root's home, a
 * `mktemp -d`), which nginx's workers (another user) cannot. Every request would be a 502 if the
 * slots were there; `up` puts what the workers open where they can reach it, or refuses.
 */

const body = (n: number) =>
  JSON.stringify({ items: [{ productName: `private-${n}`, quantity: 1, unitPrice: 2.5 }] });

/** Deploys under GET and POST load that never retries; what the load saw, and the deploy's exit. */
async function deployUnderLoad(
  url: string,
  deploy: () => Promise<{ exitCode: number; stdout: string; stderr: string }>,
) {
  const auth = { authorization: `Bearer ${await adminToken()}`, accept: 'application/json' };
  const load = startNoRetryLoad({
    base: url,
    headers: auth,
    getPath: `/users/${SEED_USER}`,
    postPath: '/orders',
    postBody: body,
    getConnections: 4,
    postConnections: 2,
    rate: 30,
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const run = await deploy();
  await new Promise((resolve) => setTimeout(resolve, 500));
  return { run, result: await load.stop() };
}

/** No process runs whose command line names `dir` (nginx's master names its prefix). */
async function processesNaming(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((e) => /^\d+$/.test(e))) {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ');
    if (cmdline.includes(dir) && Number(pid) !== process.pid) found.push(`${pid}: ${cmdline}`);
  }
  return found;
}

describe('proxyops up as root with --dir below a 0700 directory', () => {
  let stack: StackProcess | undefined;
  let runtime: string;

  beforeAll(async () => {
    const root = await mkdtemp(join(tmpdir(), 'proxyops-private-'));
    expect((await stat(root)).mode & 0o777).toBe(0o700);
    stack = await startStack(['--instances', '2', '--watch', '1.5'], {}, join(root, 'stack'));
    runtime = dirname((await stack.state()).stack!.logsDir);
  }, 120_000);
  afterAll(async () => {
    await stopStack(stack);
    if (runtime?.startsWith('/run/proxyops/')) await rm(runtime, { recursive: true, force: true });
  });

  it('puts the slots, temp files and logs in /run/proxyops/HASH and says so; the rest stays under --dir', async () => {
    expect(runtime).toMatch(/^\/run\/proxyops\/[0-9a-f]{12}$/);
    expect(stack!.output()).toContain(
      `slots, temp files and logs in ${runtime} (nginx's workers run as nobody`,
    );
    const state = await stack!.state();
    for (const instance of state.upstreams.api!)
      expect((instance as { slot?: string }).slot).toMatch(new RegExp(`^${runtime}/slots/slot-\\d\\.sock$`));
    expect(state.stack!.specPath).toBe(join(stack!.dir, 'spec.json'));
    expect((await stat(join(stack!.dir, 'database'))).isDirectory()).toBe(true);
    // The paths people type still lead to the logs.
    expect(await readlink(join(stack!.dir, 'logs'))).toBe(join(runtime, 'logs'));
  });

  it('/health/ready through nginx answers 200, and a deploy under load that never retries fails no request', async () => {
    expect((await fetch(`${stack!.url}/health/ready`)).status).toBe(200);
    const { run, result } = await deployUnderLoad(stack!.url, () => runCli(['deploy', '--dir', stack!.dir]));
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const summary = JSON.stringify({ ...result, createdIds: result.createdIds.length });
    expect(result.get, summary).toMatchObject({ errors: 0, non2xx: 0 });
    expect(result.post, summary).toMatchObject({ errors: 0, non2xx: 0 });
    expect(result.get.total + result.post.total).toBeGreaterThan(100);
    expect(await readFile(join(runtime, 'logs', 'error.log'), 'utf8')).not.toContain('Permission denied');
  }, 120_000);

  it('down says that the runtime directory, with the logs, outlives it', async () => {
    const down = await runCli(['down', '--dir', stack!.dir]);
    expect(down.exitCode, down.stderr).toBe(0);
    expect(down.stdout).toContain(
      `left ${runtime}: its logs (${join(stack!.dir, 'logs')} leads there) and temp files, until the next reboot empties /run; rm -r ${runtime}`,
    );
    expect((await stat(join(runtime, 'logs'))).isDirectory()).toBe(true);
  }, 120_000);
});

describe('--runtime-dir the workers cannot reach', () => {
  it('refuses with one line naming the path, the user and the fix, exit 2, and leaves no nginx or instance running', async () => {
    const open = await mkdtemp(join(tmpdir(), 'proxyops-open-'));
    await chmod(open, 0o755);
    const closed = await mkdtemp(join(tmpdir(), 'proxyops-closed-'));
    const dir = join(open, 'stack');
    const port = await freePort();
    try {
      const run = await execa(
        'node',
        [CLI, 'up', '--dir', dir, '--port', String(port), '--runtime-dir', join(closed, 'run')],
        {
          reject: false,
          timeout: 60_000,
          env: { DATABASE_URL: '' },
        },
      );
      expect(run.exitCode, run.stdout + run.stderr).toBe(2);
      expect(run.stderr.split('\n'), run.stderr).toHaveLength(1);
      expect(run.stderr).toBe(
        `proxyops: nginx's workers run as nobody (uid 65534) and cannot reach the directory of the slots, temp files and logs ${join(closed, 'run')}: ${closed} is mode 0700 (owner uid 0, group 0): it cannot pass; pass a --runtime-dir that nobody can traverse (such as one under /run), or leave it out`,
      );
      expect(await processesNaming(dir)).toEqual([]);
      expect(await stat(join(dir, 'nginx.pid')).catch(() => undefined)).toBeUndefined();
      expect(await fetch(`http://127.0.0.1:${port}/`).catch(() => 'refused')).toBe('refused');
    } finally {
      await rm(open, { recursive: true, force: true });
      await rm(closed, { recursive: true, force: true });
    }
  }, 90_000);
});

describe('proxyops up as an unprivileged user whose home is 0700', () => {
  const name = `pxo${process.pid}`.slice(0, 30);
  let home: string;
  let base: string;
  let checkout: Awaited<ReturnType<typeof reachableCheckout>>;
  let up: ResultPromise | undefined;
  let output = '';
  let url: string;

  /** Runs the copied CLI as the user, in their home, with nothing of root's environment. */
  const asUser = (args: string[], options: { buffer?: boolean } = {}) =>
    execa('setpriv', [`--reuid=${name}`, `--regid=${name}`, '--init-groups', 'node', checkout.cli, ...args], {
      cwd: home,
      reject: false,
      timeout: 120_000,
      ...(options.buffer === false ? { buffer: false, all: true } : {}),
      env: { HOME: home, PATH: process.env.PATH!, DATABASE_URL: '', PROXYOPS_RATE_LIMIT: '10000000' },
    });

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'proxyops-home-'));
    await chmod(base, 0o755);
    home = join(base, name);
    execFileSync('useradd', ['--home-dir', home, '--create-home', '--shell', '/bin/sh', name]);
    await chmod(home, 0o700);
    checkout = await reachableCheckout();
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    up = asUser(
      [
        'up',
        '--dir',
        join(home, 'stack'),
        '--port',
        String(port),
        '--instances',
        '2',
        '--watch',
        '1.5',
        '--rate-limit',
        '10000000',
      ],
      { buffer: false },
    );
    up.all!.setEncoding('utf8');
    up.all!.on('data', (chunk: string) => (output += chunk));
    const deadline = Date.now() + 90_000;
    while (!output.includes('local stack is up')) {
      if (up.exitCode !== null || Date.now() > deadline) throw new Error(`up did not come up:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }, 150_000);
  afterAll(async () => {
    if (up && up.exitCode === null) up.kill('SIGINT');
    await up;
    execFileSync('userdel', [name]);
    await rm(base, { recursive: true, force: true });
    await checkout?.remove();
  }, 60_000);

  it('serves /health/ready with 200, its workers running as the user, everything under --dir', async () => {
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    expect(output).not.toContain('slots, temp files and logs in');
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const master = Number((await readFile(join(home, 'stack', 'nginx.pid'), 'utf8')).trim());
    const workers = execFileSync('ps', ['-o', 'uid=', '--ppid', String(master)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
    expect(workers.length).toBeGreaterThan(0);
    expect(new Set(workers)).toEqual(new Set([uid]));
    expect((await stat(join(home, 'stack', 'slots'))).uid).toBe(uid);
  });

  it('a deploy under load that never retries fails no request', async () => {
    const { run, result } = await deployUnderLoad(
      url,
      () =>
        asUser(['deploy', '--dir', join(home, 'stack')]) as Promise<{
          exitCode: number;
          stdout: string;
          stderr: string;
        }>,
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const summary = JSON.stringify({ ...result, createdIds: result.createdIds.length });
    expect(result.get, summary).toMatchObject({ errors: 0, non2xx: 0 });
    expect(result.post, summary).toMatchObject({ errors: 0, non2xx: 0 });
    expect(result.get.total + result.post.total).toBeGreaterThan(100);
  }, 120_000);

  it('a port below 1024: one line saying only root may listen there, exit 2', async () => {
    const run = await asUser(['up', '--dir', join(home, 'other'), '--port', '80']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      'proxyops: --port 80: 127.0.0.1:80 is below 1024, which only root may listen on; pick --port 8080 or another above 1023',
    );
  }, 60_000);
});

describe('the embedded database keeps its data under --dir', () => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-data-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('an order written through the stack is there after up is stopped and started again; --fresh starts over', async () => {
    const dir = join(root, 'stack');
    const start = async (flags: string[] = []) => startStack(['--instances', '1', ...flags], {}, dir);
    const stop = async (stack: StackProcess) => {
      stack.process.kill('SIGINT');
      await stack.process;
    };
    const auth = {
      authorization: `Bearer ${await adminToken()}`,
      accept: 'application/json',
      'content-type': 'application/json',
    };
    const runtimes = new Set<string>();
    let stack = await start();
    try {
      runtimes.add(dirname((await stack.state()).stack!.logsDir));
      const created = await fetch(`${stack.url}/orders`, { method: 'POST', headers: auth, body: body(1) });
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      await stop(stack);

      stack = await start();
      runtimes.add(dirname((await stack.state()).stack!.logsDir));
      const again = await fetch(`${stack.url}/orders/${id}`, { headers: auth });
      expect(again.status).toBe(200);
      expect(((await again.json()) as { id: string }).id).toBe(id);
      // The demo data was not seeded a second time.
      const users = (await (await fetch(`${stack.url}/users?limit=100`, { headers: auth })).json()) as {
        items: unknown[];
      };
      expect(users.items).toHaveLength(5);
      await stop(stack);

      stack = await start(['--fresh']);
      // Said, not done quietly: the data of every earlier run is gone.
      expect(stack.output()).toContain(`--fresh: removed the earlier data in ${join(dir, 'database')}`);
      expect((await fetch(`${stack.url}/orders/${id}`, { headers: auth })).status).toBe(404);
      expect((await fetch(`${stack.url}/users/${SEED_USER}`, { headers: auth })).status).toBe(200);
    } finally {
      await stop(stack).catch(() => undefined);
      for (const runtime of runtimes)
        if (runtime.startsWith('/run/proxyops/')) await rm(runtime, { recursive: true, force: true });
    }
  }, 240_000);
});

describe('config apply to a running nginx whose workers could not reach the new socket', () => {
  let root: string;
  let closed: string;
  let nginx: NginxTarget | undefined;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-apply-reach-'));
    await chmod(root, 0o755);
    closed = await mkdtemp(join(tmpdir(), 'proxyops-apply-closed-'));
  });
  afterAll(async () => {
    if (nginx) await signalNginx(nginx, 'stop').catch(() => undefined);
    await rm(root, { recursive: true, force: true });
    await rm(closed, { recursive: true, force: true });
  });

  it('refuses with one line naming the socket, the user and the fix, exit 2; the live version stays', async () => {
    const runtime = join(root, 'run');
    await mkdir(join(runtime, 'logs'), { recursive: true, mode: 0o755 });
    await mkdir(join(runtime, 'temp'), { recursive: true, mode: 0o755 });
    const port = await freePort();
    const spec = (socket: string) => ({
      version: 1,
      paths: { pidFile: join(runtime, 'nginx.pid'), tempDir: join(runtime, 'temp') },
      workers: { processes: 1, connections: 256, rlimitNofile: 1024 },
      accessLog: { path: join(runtime, 'logs', 'access.log'), buffer: null },
      errorLog: { path: join(runtime, 'logs', 'error.log') },
      upstreams: { app: { servers: [{ socket }] } },
      servers: [
        {
          names: ['localhost'],
          listen: [{ address: '127.0.0.1', port }],
          routes: [{ path: '/', upstream: 'app' }],
        },
      ],
    });
    nginx = await startAppliedNginx(root, runtime, spec(join(runtime, 'app.sock')));
    const live = await readFile(join(root, 'conf', 'current', 'nginx.conf'), 'utf8');
    const specPath = join(root, 'closed-spec.json');
    await writeFile(specPath, JSON.stringify(spec(join(closed, 'app.sock'))));
    const run = await execa(
      'node',
      [CLI, 'config', 'apply', '--spec', specPath, '--target', join(root, 'conf')],
      {
        reject: false,
        timeout: 60_000,
      },
    );
    expect(run.exitCode, run.stdout + run.stderr).toBe(2);
    expect(run.stderr).toBe(
      `proxyops: nginx's workers run as nobody (uid 65534) and cannot reach the socket of upstream app ${join(closed, 'app.sock')}: ${closed} is mode 0700 (owner uid 0, group 0): it cannot pass; let nobody through (chmod o+x ${closed}) or move it below directories nobody can traverse`,
    );
    expect(await readFile(join(root, 'conf', 'current', 'nginx.conf'), 'utf8')).toBe(live);
  }, 60_000);
});
