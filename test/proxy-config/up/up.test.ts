import { existsSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { createClient } from 'graphql-ws';
import pg from 'pg';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokedName } from '../../../cli/invoked-name.js';
import { readVersionState } from '../../../proxy-config/shell/nginx/config-versions.js';
import { readChildPids, readLiveMasterPid } from '../../../proxy-config/shell/nginx/nginx-master.js';
import { listOpenFds } from '../../../proxy-config/shell/process/proc-fds.js';
import { readTcpSockets } from '../../../proxy-config/shell/process/proc-net-tcp.js';
import { freePort } from '../../support/ports.js';
import { DATABASE_URL } from '../../support/services.js';
import {
  adminToken,
  CLI,
  isAlive,
  runCli,
  stopStack,
  SEED_USER,
  stackPids,
  startStack,
  type StackProcess,
} from '../deploy/stack-harness.js';

/** Starts `proxyops up` with one instance on the embedded database and waits until its output shows `text`. */
async function spawnUp(name: string, text: string) {
  const root = await mkdtemp(join(tmpdir(), `proxyops-stack-${name}-`));
  await chmod(root, 0o755);
  const dir = join(root, 'stack');
  const child = execa(
    'node',
    [CLI, 'up', '--dir', dir, '--port', String(await freePort()), '--instances', '1'],
    {
      all: true,
      buffer: false,
      reject: false,
      env: { DATABASE_URL: '' },
    },
  );
  let output = '';
  child.all!.setEncoding('utf8');
  child.all!.on('data', (chunk: string) => (output += chunk));
  const deadline = Date.now() + 60_000;
  while (!output.includes(text) && child.exitCode === null && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  return { child, root, dir, output: () => output };
}

describe('proxyops up: nginx in front of N API instances on one shared database', () => {
  let stack: StackProcess;

  beforeAll(async () => {
    stack = await startStack([
      '--no-slots',
      '--instances',
      '2',
      '--health-interval',
      '0.2',
      '--health-threshold',
      '2',
    ]);
  }, 120_000);
  afterAll(async () => {
    await stopStack(stack);
  });

  it('prints the URL, the logs and how to stop', () => {
    expect(stack.output()).toContain(`local stack is up: ${stack.url}`);
    expect(stack.output()).toMatch(/logs: .*access\.log/);
    // The hint names the command as it was run (here `node dist/cli/main.js`), so it can be copied.
    expect(stack.output()).toContain(
      `stop:    Ctrl-C, or ${invokedName(process.env, ['node', CLI])} down --dir`,
    );
  });

  it('serves the API through nginx, spread over both instances, which share one database', async () => {
    const token = await adminToken();
    const auth = { authorization: `Bearer ${token}`, accept: 'application/json' };
    const state = await stack.state();
    const instances = state.upstreams.api!;
    expect(instances).toHaveLength(2);
    // Only the first instance seeded; the second sees the same rows, so the database is shared.
    for (const instance of instances) {
      const direct = await fetch(`http://${instance.host}:${instance.port}/users/${SEED_USER}`, {
        headers: auth,
      });
      expect(direct.status).toBe(200);
      expect(((await direct.json()) as { email: string }).email).toBe('ada@example.com');
    }
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${stack.url}/users/${SEED_USER}`, { headers: auth });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-served-by')).toBe('proxyops-local');
    }
    // nginx writes each line after its response has gone out: wait for them rather than race them.
    const accessLog = () => readFile(join(stack.dir, 'logs', 'access.log'), 'utf8');
    for (const instance of instances)
      await expect.poll(accessLog, { timeout: 10_000 }).toContain(`ua="${instance.host}:${instance.port}"`);
  });

  it('a spoofed Host or X-Forwarded-Host appears in no link, header or body', async () => {
    const token = await adminToken();
    const port = new URL(stack.url).port;
    // Host naming no server of the stack: the catch-all answers 421 itself, the API never sees it.
    const misdirected = await rawGet(port, '/users', {
      host: 'evil.example',
      authorization: `Bearer ${token}`,
    });
    expect(misdirected.status).toBe(421);
    expect(misdirected.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(misdirected.body)).toMatchObject({ status: 421, code: 'MISDIRECTED_REQUEST' });

    const forged = {
      authorization: `Bearer ${token}`,
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '203.0.113.9',
    };
    const created = await fetch(`${stack.url}/orders`, {
      method: 'POST',
      headers: { ...forged, 'content-type': 'application/json' },
      body: JSON.stringify({
        userId: SEED_USER,
        items: [{ productName: 'Lamp', quantity: 1, unitPrice: 3 }],
      }),
    });
    expect(created.status).toBe(201);
    const list = await fetch(`${stack.url}/orders?limit=1`, { headers: forged });
    for (const res of [created, list]) {
      const seen = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join('\n') + (await res.text());
      expect(seen).not.toContain('evil.example');
      expect(seen).not.toContain('https://');
      expect(seen).toContain(`http://127.0.0.1:${port}/`);
    }
  });

  it('a graphql-ws subscription through nginx receives an order created over REST, on any instance', async () => {
    const token = await adminToken();
    const client = createClient({
      url: `${stack.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      connectionParams: { authorization: `Bearer ${token}` },
    });
    try {
      const events = client.iterate<{ orderCreated: { id: string; userId: string } }>({
        query: 'subscription($u: ID) { orderCreated(userId: $u) { id userId } }',
        variables: { u: SEED_USER },
      });
      const first = events.next();
      // Orders are created until one event arrives: the subscription registers asynchronously, and
      // the REST requests spread over both instances, so the event crosses instances too.
      const created: string[] = [];
      let received: { orderCreated: { id: string } } | undefined;
      first.then((result) => (received = result.value?.data ?? undefined)).catch(() => undefined);
      for (let i = 0; i < 50 && !received; i++) {
        const res = await fetch(`${stack.url}/orders`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            userId: SEED_USER,
            items: [{ productName: 'Lamp', quantity: 1, unitPrice: 3 }],
          }),
        });
        expect(res.status).toBe(201);
        created.push(((await res.json()) as { id: string }).id);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(received).toBeDefined();
      expect(created).toContain(received!.orderCreated.id);
      await events.return?.();
    } finally {
      await client.dispose();
    }
  }, 30_000);

  it('plain requests reuse the upstream keep-alive connections, although the route upgrades WebSockets', async () => {
    const state = await stack.state();
    const instances = new Set(state.upstreams.api!.map((i) => `${i.host}:${i.port}`));
    const master = (await readLiveMasterPid(state.stack!.nginxPidFile))!;
    const workers = await readChildPids(master);
    // The connections nginx's workers hold to the instances (health checks from elsewhere do not count).
    const upstreamConnections = async () => {
      const inodes = new Set<string>();
      for (const pid of workers)
        for (const { target } of await listOpenFds(pid)) {
          const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
          if (inode) inodes.add(inode);
        }
      return (await readTcpSockets())
        .filter((s) => s.state === 'ESTABLISHED' && instances.has(s.remote) && inodes.has(s.inode))
        .map((s) => s.local);
    };
    const used = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${stack.url}/health/live`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      // Kept open after each answer: without keep-alive nginx closes it, and the next request opens a new one.
      const open = await upstreamConnections();
      expect(open.length).toBeGreaterThan(0);
      for (const local of open) used.add(local);
    }
    // Twenty requests over one connection per instance per worker at most, not twenty connections.
    expect(used.size).toBeLessThanOrEqual(instances.size * workers.length);
  });

  it('an nginx-made 413 is a JSON problem with the X-Request-ID', async () => {
    const res = await fetch(`${stack.url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('x-served-by')).toBe('proxyops-local');
    const problem = (await res.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ status: 413, code: 'BODY_TOO_LARGE', layer: 'proxyops-local' });
    expect(problem.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('an nginx-made 502 is a JSON problem with the X-Request-ID', async () => {
    const state = await stack.state();
    const supervisor = state.stack!.supervisorPid;
    const instances = state.upstreams.api!;
    // `up` restarts an instance that exits at once: paused, it leaves nginx nothing to reach.
    process.kill(supervisor, 'SIGSTOP');
    try {
      for (const instance of instances) process.kill(instance.pid!, 'SIGKILL');
      for (const instance of instances)
        await expect.poll(() => isAlive(instance.pid!), { timeout: 10_000 }).toBe(false);
      const res = await fetch(`${stack.url}/users`);
      expect(res.status).toBe(502);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const problem = (await res.json()) as Record<string, unknown>;
      expect(problem).toMatchObject({ status: 502, code: 'UPSTREAM_UNAVAILABLE', layer: 'proxyops-local' });
      expect(problem.requestId).toBe(res.headers.get('x-request-id'));
    } finally {
      process.kill(supervisor, 'SIGCONT');
    }
    // Both are started again on their addresses before the next test.
    for (const instance of instances)
      await expect
        .poll(
          () =>
            fetch(`http://${instance.host}:${instance.port}/health/ready`)
              .then((r) => r.status)
              .catch(() => 0),
          { timeout: 30_000, interval: 100 },
        )
        .toBe(200);
  }, 60_000);

  it('applying the live spec again changes no version and no worker pid', async () => {
    const state = await stack.state();
    const target = join(stack.dir, 'config');
    const master = (await readLiveMasterPid(state.stack!.nginxPidFile))!;
    const before = { versions: await readVersionState(target), workers: await readChildPids(master) };
    expect(before.workers.length).toBeGreaterThan(0);
    const run = await runCli(['config', 'apply', '--spec', state.stack!.specPath, '--target', target]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/^unchanged v\d{4}: .*\(nothing written, no reload\)$/);
    expect(await readVersionState(target)).toEqual(before.versions);
    expect(await readChildPids(master)).toEqual(before.workers);
    expect((await fetch(`${stack.url}/health/live`)).status).toBe(200);
  });

  it('an instance that exits is started again on its address, and serves', async () => {
    const [victim] = (await stack.state()).upstreams.api!;
    process.kill(victim!.pid!, 'SIGKILL');
    const deadline = Date.now() + 30_000;
    let restarted: { pid?: number } | undefined;
    while (Date.now() < deadline) {
      restarted = (await stack.state()).upstreams.api!.find((i) => i.port === victim!.port);
      if (restarted?.pid !== victim!.pid && restarted?.pid && (await isAlive(restarted.pid))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(restarted?.pid).not.toBe(victim!.pid);
    expect(stack.output()).toContain(
      `instance ${victim!.host}:${victim!.port} (pid ${victim!.pid}) exited: restarted as pid ${restarted?.pid}`,
    );
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = await fetch(`http://${victim!.host}:${victim!.port}/health/ready`)
        .then((res) => res.status)
        .catch(() => 0);
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  }, 60_000);

  it('Ctrl-C stops nginx, the instances and the database, leaving no process behind', async () => {
    const pids = await stackPids(stack);
    expect(pids.length).toBeGreaterThanOrEqual(5);
    for (const pid of pids) expect(await isAlive(pid)).toBe(true);
    stack.process.kill('SIGINT');
    const result = await stack.process;
    expect(result.exitCode).toBe(0);
    expect(stack.output()).toMatch(
      /stopping nginx[\s\S]*stopping instance[\s\S]*stopping the embedded database/,
    );
    for (const pid of pids) expect(await isAlive(pid), `pid ${pid} is still running`).toBe(false);
    expect(existsSync(join(stack.dir, 'config', 'instances.json'))).toBe(false);
  }, 60_000);

  it('a --port already in use is bad input, named with its holder, before anything starts', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as AddressInfo).port;
    const root = await mkdtemp(join(tmpdir(), 'proxyops-stack-taken-'));
    try {
      const run = await execa('node', [CLI, 'up', '--dir', join(root, 'stack'), '--port', String(port)], {
        reject: false,
        env: { DATABASE_URL: '' },
      });
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toBe(
        `proxyops: --port ${port}: 127.0.0.1:${port} is in use (pid ${process.pid}); pick another port`,
      );
      expect(run.stdout).not.toContain('embedded database');
    } finally {
      holder.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('Ctrl-C while it is still starting stops everything once it is up', async () => {
    const { child, root, dir, output } = await spawnUp('early', 'embedded database');
    child.kill('SIGINT');
    expect((await child).exitCode).toBe(0);
    expect(output()).toMatch(/local stack is up[\s\S]*SIGINT: stopping[\s\S]*stopped/);
    const pids = [...output().matchAll(/\(pid (\d+)/g)].map((m) => Number(m[1]));
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of [...pids, child.pid!]) expect(await isAlive(pid), `pid ${pid}`).toBe(false);
    expect(existsSync(join(dir, 'nginx.pid')) ? await readFile(join(dir, 'nginx.pid'), 'utf8') : '').toBe('');
    await rm(root, { recursive: true, force: true });
  }, 90_000);

  it('Ctrl-C stops everything even when its output pipe has closed (proxyops up | tee, Ctrl-C ends tee too)', async () => {
    const { child, root, dir, output } = await spawnUp('pipe', 'stop:');
    const pids = [...output().matchAll(/\(pid (\d+)/g)].map((m) => Number(m[1]));
    const nginxPid = Number((await readFile(join(dir, 'nginx.pid'), 'utf8')).trim());
    expect(pids.length).toBeGreaterThan(0);
    child.all!.destroy();
    child.stdout!.destroy();
    child.stderr!.destroy();
    child.kill('SIGINT');
    await child;
    for (const pid of [...pids, nginxPid, child.pid!]) expect(await isAlive(pid), `pid ${pid}`).toBe(false);
    await rm(root, { recursive: true, force: true });
  }, 90_000);
});

describe('proxyops up on a PostgreSQL server (DATABASE_URL)', () => {
  const schema = `proxyops_up_${process.pid}`;
  let stack: StackProcess;

  beforeAll(async () => {
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.end();
    // Every instance connects with this search_path: the test's tables stay in their own schema.
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    stack = await startStack(['--no-slots', '--instances', '2'], { DATABASE_URL: url.toString() });
  }, 120_000);
  afterAll(async () => {
    await stopStack(stack);
    const client = new pg.Client({ connectionString: DATABASE_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it('runs every instance on that server instead of the embedded database, and stops cleanly', async () => {
    expect(stack.output()).toContain('database: DATABASE_URL');
    expect(stack.output()).not.toContain('embedded database');
    const auth = { authorization: `Bearer ${await adminToken()}`, accept: 'application/json' };
    for (const instance of (await stack.state()).upstreams.api!) {
      const res = await fetch(`http://${instance.host}:${instance.port}/users/${SEED_USER}`, {
        headers: auth,
      });
      expect(res.status).toBe(200);
    }
    const pids = await stackPids(stack);
    stack.process.kill('SIGINT');
    expect((await stack.process).exitCode).toBe(0);
    for (const pid of pids) expect(await isAlive(pid), `pid ${pid} is still running`).toBe(false);
  }, 60_000);
});

/** A GET with headers fetch() will not send as given (Host), on a fresh connection. */
function rawGet(port: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: Number(port), path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
