import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RefusedAddress } from '../../../proxy-config/core/deploy/refusal.js';
import {
  allowConnects,
  refusalSupport,
  refuseConnects,
} from '../../../proxy-config/shell/nginx/refuse-connects.js';
import { pickFreePort } from '../../../proxy-config/shell/process/tcp-accepting.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';

/** How long the old instance's event loop is blocked before it closes its listener. */
const BLOCK_MS = 1500;
/** POSTs sent through nginx while the old instance is blocked. */
const POSTS = 10;

/**
 * The old instance: answers every request 201 "A" and prints "request METHOD URL" for each one it
 * reads. On "leave" on stdin it prints "blocking", busy-loops BLOCK_MS, then closes its listener in
 * the same tick: connections whose handshake the kernel completed meanwhile are still in the accept
 * queue, and the kernel resets them after nginx has written its request on them.
 */
const OLD_INSTANCE = `
import { createServer } from 'node:http';
import { writeSync } from 'node:fs';
const say = (line) => writeSync(1, line + '\\n');
const server = createServer((req, res) => {
  say('request ' + req.method + ' ' + req.url);
  req.resume();
  req.on('end', () => {
    res.writeHead(201, { connection: 'close' });
    res.end('A');
  });
});
server.listen(Number(process.env.PORT), process.env.HOST, () => say('listening'));
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  if (!chunk.includes('leave')) return;
  say('blocking');
  const until = Date.now() + Number(process.env.BLOCK_MS);
  while (Date.now() < until) {}
  server.close();
  say('closed');
});
`;

interface OldInstance {
  child: ChildProcessWithoutNullStreams;
  /** Every line it printed so far. */
  lines: string[];
  /** Resolves with the first line (already printed or to come) that `test` accepts. */
  waitFor(test: (line: string) => boolean): Promise<string>;
  /** The URLs of the requests it read. */
  requests(): string[];
}

const children: ChildProcessWithoutNullStreams[] = [];

/** Ends every old instance started so far (one that failed a test may still listen). */
async function stopOldInstances(): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
  }
}

async function startOldInstance(address: RefusedAddress): Promise<OldInstance> {
  await stopOldInstances();
  const child = spawn(process.execPath, ['--input-type=module', '-e', OLD_INSTANCE], {
    env: { ...process.env, HOST: address.host, PORT: String(address.port), BLOCK_MS: String(BLOCK_MS) },
  });
  children.push(child);
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const wake of waiters.splice(0)) wake();
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const waitFor = async (test: (line: string) => boolean): Promise<string> => {
    for (;;) {
      const found = lines.find(test);
      if (found !== undefined) return found;
      if (child.exitCode !== null) throw new Error(`the old instance exited ${child.exitCode}: ${stderr}`);
      await new Promise<void>((wake) => {
        waiters.push(wake);
        setTimeout(wake, 200);
      });
    }
  };
  const instance: OldInstance = {
    child,
    lines,
    waitFor,
    requests: () => lines.filter((l) => l.startsWith('request ')).map((l) => l.split(' ')[2]!),
  };
  await waitFor((l) => l === 'listening');
  return instance;
}

/** Tells the old instance to leave; resolves once its event loop is blocked. */
async function triggerLeave(instance: OldInstance): Promise<void> {
  instance.child.stdin.write('leave\n');
  await instance.waitFor((l) => l === 'blocking');
}

/** One POST on a fresh connection (no keep-alive, no retry): its status and body, or the error. */
function post(host: string, port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, method: 'POST', agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setHeader('content-type', 'application/json');
    req.end(JSON.stringify({ path }));
  });
}

/** The new instance: answers every request 201 "B". */
function startNewInstance(address: RefusedAddress): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(201, { connection: 'close' });
      res.end('B');
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => resolve(server));
  });
}

const chainOf = (a: RefusedAddress) => `refuse_${a.host.replaceAll('.', '_')}_${a.port}`;
const listTable = async () => (await execa('nft', ['list', 'table', 'inet', 'proxyops'])).stdout;
const listChain = (a: RefusedAddress) =>
  execa('nft', ['list', 'chain', 'inet', 'proxyops', chainOf(a)], { reject: false });

describe('refuseConnects: nginx passes a POST on instead of a 502 when the old instance closes its listener', () => {
  let nginx: LiveNginx;
  let nginxPort: number;
  let oldAddress: RefusedAddress;
  let newAddress: RefusedAddress;
  let newInstance: Server;
  let workerUid: number;

  beforeAll(async () => {
    oldAddress = { host: '127.0.0.2', port: await pickFreePort('127.0.0.2') };
    newAddress = { host: '127.0.0.3', port: await pickFreePort('127.0.0.3') };
    nginxPort = await freePort();
    newInstance = await startNewInstance(newAddress);
    // No `user` directive: the master runs as root (as this test), so the workers run as nobody.
    // max_fails=0: a failure never takes A out of the rotation, so every other request tries A first.
    nginx = await startLiveNginx(`
  upstream app {
    server ${oldAddress.host}:${oldAddress.port} max_fails=0;
    server ${newAddress.host}:${newAddress.port} max_fails=0;
  }
  server {
    listen 127.0.0.1:${nginxPort};
    location / { proxy_pass http://app; }
  }`);
  });

  afterAll(async () => {
    if (oldAddress) await allowConnects(oldAddress).catch(() => undefined);
    await stopOldInstances();
    await new Promise<void>((done) => (newInstance ? newInstance.close(() => done()) : done()));
    await nginx?.stop();
  });

  /** Sends POSTS POSTs through nginx, all at once, while `instance` is blocked before it leaves. */
  async function postsWhileLeaving(instance: OldInstance, tag: string) {
    await triggerLeave(instance);
    await sleep(50);
    const results = await Promise.all(
      Array.from({ length: POSTS }, (_, i) => post('127.0.0.1', nginxPort, `/${tag}/${i}`)),
    );
    await instance.waitFor((l) => l === 'closed');
    return results;
  }

  /** Access-log lines of the requests whose path starts with /TAG/. */
  async function logged(tag: string): Promise<string[]> {
    return (await nginx.readAccessLog()).split('\n').filter((line) => line.includes(` /${tag}/`));
  }

  it('refusalSupport finds the workers of this nginx and their uid (nobody)', async () => {
    const support = await refusalSupport(join(nginx.prefix, 'nginx.pid'));
    const nobody = Number(
      /^nobody:[^:]*:(\d+):/m.exec(await readFile('/etc/passwd', 'utf8'))?.[1] ?? Number.NaN,
    );
    // Fails (with the reason) where nft is missing or the test is not root: never skipped.
    expect(support).toEqual({ ok: true, workerUid: nobody });
    workerUid = nobody;
  });

  it('allowConnects on an address never refused does nothing', async () => {
    const never: RefusedAddress = { host: '127.0.0.2', port: await pickFreePort('127.0.0.2') };
    expect((await listChain(never)).exitCode).not.toBe(0);
    await expect(allowConnects(never)).resolves.toBeUndefined();
    expect((await listChain(never)).exitCode).not.toBe(0);
  });

  it('without refusal, POSTs queued in the old listener when it closes get 502', async () => {
    const old = await startOldInstance(oldAddress);
    const results = await postsWhileLeaving(old, 'unrefused');
    const statuses = results.map((r) => r.status);
    console.log(
      `without refusal: ${statuses.filter((s) => s === 502).length} of ${POSTS} got 502 (${statuses.join(' ')})`,
    );
    expect(statuses.filter((s) => s === 502).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 502)).toBe(true);
    // The old instance never read one: those sent to it were reset in its accept queue.
    expect(old.requests()).toEqual([]);
    expect(await nginx.readErrorLog()).toContain('recv() failed (104: Connection reset by peer)');
  });

  it('with refusal, every POST is passed on to the new instance and none reaches the old one', async () => {
    const old = await startOldInstance(oldAddress);
    await refuseConnects(oldAddress, workerUid);
    // Twice: still one rule.
    await refuseConnects(oldAddress, workerUid);
    const chain = await listChain(oldAddress);
    expect(chain.exitCode, chain.stderr).toBe(0);
    expect(chain.stdout.match(/reject with tcp reset/g)).toHaveLength(1);
    expect(chain.stdout).toContain(`meta skuid ${workerUid}`);

    // The rule matches nginx's workers only: this process (root) still reaches the old instance.
    expect(await post(oldAddress.host, oldAddress.port, '/probe')).toEqual({ status: 201, body: 'A' });

    const results = await postsWhileLeaving(old, 'refused');
    expect(results).toEqual(Array.from({ length: POSTS }, () => ({ status: 201, body: 'B' })));
    expect(old.requests()).toEqual(['/probe']);
    // nginx did try the old instance for some of them, was refused, and passed them on.
    const tried = (await logged('refused')).filter((line) =>
      line.includes(`ua="${oldAddress.host}:${oldAddress.port}, ${newAddress.host}:${newAddress.port}"`),
    );
    expect(tried.length).toBeGreaterThanOrEqual(1);
    expect(await nginx.readErrorLog()).toContain(
      `connect() failed (111: Connection refused) while connecting to upstream`,
    );
  });

  it('allowConnects lifts the refusal: its chain is gone and nginx reaches the address again', async () => {
    await allowConnects(oldAddress);
    expect(await listTable()).not.toContain(chainOf(oldAddress));
    expect((await listChain(oldAddress)).exitCode).not.toBe(0);
    // A second lift does nothing.
    await expect(allowConnects(oldAddress)).resolves.toBeUndefined();

    const old = await startOldInstance(oldAddress);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await post('127.0.0.1', nginxPort, `/allowed/${i}`));
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(results.map((r) => r.body)).toContain('A');
    expect(old.requests().length).toBeGreaterThanOrEqual(1);
  });
});
