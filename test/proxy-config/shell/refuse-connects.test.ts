import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmod, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RefusedAddress } from '../../../proxy-config/core/deploy/refusal.js';
import { acceptQueueOf } from '../../../proxy-config/core/host/listen-queue.js';
import type { Host } from '../../../proxy-config/shell/host/host.js';
import { createLocalHost } from '../../../proxy-config/shell/host/local-host.js';
import {
  allowConnects,
  refusalSupport,
  refuseConnects,
} from '../../../proxy-config/shell/nginx/refuse-connects.js';
import { waitAcceptQueueEmpty, type QueueWait } from '../../../proxy-config/shell/process/accept-queue.js';
import { pickFreePort } from '../../../proxy-config/shell/process/tcp-accepting.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';

/** How long the old instance's event loop is blocked before it closes its listener. */
const BLOCK_MS = 1500;
/** POSTs sent through nginx while the old instance is blocked. */
const POSTS = 10;

/**
 * The old instance: answers every request 201 "A" and prints "request METHOD URL" for each one it
 * reads. Commands on stdin, one a line:
 * - "leave": prints "blocking", busy-loops BLOCK_MS, then closes its listener in the same tick:
 *   connections whose handshake the kernel completed meanwhile are still in the accept queue, and
 *   the kernel resets them after nginx has written its request on them.
 * - "hold PATH": prints "blocking" and busy-loops until the file PATH exists (the test decides when
 *   the block ends, not a clock; at most 20 s), then prints "unblocked WHAT" (the file's content).
 *   When WHAT is "close" it closes its listener in that same tick (before its loop accepts what is
 *   queued) and prints "closed"; otherwise its loop runs on and accepts the queued connections.
 * - "close": closes its listener and prints "closed".
 */
const OLD_INSTANCE = `
import { createServer } from 'node:http';
import { existsSync, readFileSync, writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
const say = (line) => writeSync(1, line + '\\n');
const server = createServer((req, res) => {
  say('request ' + req.method + ' ' + req.url);
  req.resume();
  req.on('end', () => {
    res.writeHead(201, { connection: 'close' });
    res.end('A');
  });
});
const close = () => {
  server.close();
  say('closed');
};
server.listen(Number(process.env.PORT), process.env.HOST, () => say('listening'));
createInterface({ input: process.stdin }).on('line', (command) => {
  if (command === 'leave') {
    say('blocking');
    const until = Date.now() + Number(process.env.BLOCK_MS);
    while (Date.now() < until) {}
    close();
  } else if (command.startsWith('hold ')) {
    const release = command.slice('hold '.length);
    say('blocking');
    const cap = Date.now() + 20000;
    while (!existsSync(release) && Date.now() < cap) {}
    const what = existsSync(release) ? readFileSync(release, 'utf8') : 'cap reached';
    say('unblocked ' + what);
    if (what === 'close') close();
  } else if (command === 'close') {
    close();
  }
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

type Answer = { status: number; body: string } | { error: string };

/** `post`, whose failure is an answer too (so that it can be counted while others are pending). */
const postAnswer = (host: string, port: number, path: string): Promise<Answer> =>
  post(host, port, path).catch((error: Error) => ({ error: error.message }));

const statusOf = (a: Answer) => ('status' in a ? a.status : a.error);

/** Recv-Q of the listener at `address` as `ss` shows it here (its accept queue), or undefined. */
async function queuedAt(address: RefusedAddress): Promise<number | undefined> {
  const ran = await createLocalHost().run(['ss', '-Hltn', `sport = :${address.port}`]);
  return acceptQueueOf(ran.stdout, address.host, address.port);
}

/** Polls `check` every 20 ms until it holds; throws `what` if it has not after 15 s (a hang). */
async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const bound = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > bound) throw new Error(`never: ${what}`);
    await sleep(20);
  }
}

/**
 * strace holding each of `calls` for 3 s on entry, in the process (and its children) that `target`
 * names: `-p PID` to attach, or a command to start.
 */
function delayingSyscalls(calls: string[], target: string[]) {
  const inject = calls.flatMap((call) => ['-e', `inject=${call}:delay_enter=3s`]);
  return execa(
    'strace',
    ['-f', '-qq', '-o', '/dev/null', '-e', `trace=${calls.join(',')}`, ...inject, ...target],
    {
      reject: false,
    },
  );
}

/** The pids whose parent is `pid`. */
async function childrenOf(pid: number): Promise<number[]> {
  const tasks = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8');
  return tasks.split(' ').filter(Boolean).map(Number);
}

/** A process's effective uid. */
async function uidOf(pid: number): Promise<number> {
  return Number(/^Uid:\s*\d+\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))![1]);
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
  /** Where the test writes the files that end an old instance's "hold". */
  let releaseDir: string;

  beforeAll(async () => {
    releaseDir = await mkdtemp(join(tmpdir(), 'proxyops-release-'));
    oldAddress = { host: '127.0.0.2', port: await pickFreePort('127.0.0.2') };
    newAddress = { host: '127.0.0.3', port: await pickFreePort('127.0.0.3') };
    nginxPort = await freePort();
    newInstance = await startNewInstance(newAddress);
    workerUid = Number(
      /^nobody:[^:]*:(\d+):/m.exec(await readFile('/etc/passwd', 'utf8'))?.[1] ?? Number.NaN,
    );
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
    if (releaseDir) await rm(releaseDir, { recursive: true, force: true });
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
    // Fails (with the reason) where nft is missing or the test is not root: never skipped.
    expect(support).toEqual({ ok: true, workerUid });
  });

  it('refusalSupport asked while a new worker is still root waits for it to drop to its user', async () => {
    // Between fork() and setuid() a new worker still runs as root under the master's title: asked
    // then, the check once answered "nginx's workers run as proxyops's own user" (a CI run met it
    // right after nginx started). strace holds each new worker's setuid() for 3 s, so a reload
    // opens that moment for certain, and the check is asked in it (with time to spare to settle).
    const pidFile = join(nginx.prefix, 'nginx.pid');
    const master = Number((await readFile(pidFile, 'utf8')).trim());
    const before = new Set(await childrenOf(master));
    const tracer = delayingSyscalls(['setuid'], ['-p', `${master}`]);
    try {
      await until(
        'strace attached',
        async () => (await readFile(`/proc/${master}/status`, 'utf8')).match(/^TracerPid:\s*[1-9]/m) !== null,
      );
      process.kill(master, 'SIGHUP');
      await until('a new worker forked', async () =>
        (await childrenOf(master)).some((pid) => !before.has(pid)),
      );
      const fresh = (await childrenOf(master)).filter((pid) => !before.has(pid));
      // The moment the test is about: a new worker that is root and not yet titled.
      expect(await uidOf(fresh[0]!)).toBe(0);
      expect(await refusalSupport(pidFile, { settleMs: 30_000 })).toEqual({ ok: true, workerUid });
    } finally {
      tracer.kill('SIGINT');
      await tracer;
    }
  });

  it('refusalSupport asked when the pid file is written but no worker is forked yet waits for one', async () => {
    // nginx writes its pid file before its master forks the workers: strace holds that fork for
    // 3 s, and the check is asked in between (it answered "the workers were not found").
    const prefix = await mkdtemp(join(tmpdir(), 'proxyops-nginx-'));
    await chmod(prefix, 0o755);
    const pidFile = join(prefix, 'nginx.pid');
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (t) => `${t}_temp_path ${join(prefix, t)};`,
    );
    await writeFile(
      join(prefix, 'nginx.conf'),
      `worker_processes 1; pid ${pidFile}; error_log ${join(prefix, 'error.log')};
events {}
http { access_log off; ${temp.join(' ')} server { listen 127.0.0.1:${await freePort()}; return 204; } }
`,
    );
    const traced = delayingSyscalls(
      ['clone', 'clone3'],
      ['nginx', '-p', prefix, '-c', 'nginx.conf', '-g', 'daemon off;'],
    );
    let master: number | undefined;
    try {
      await until(
        'the pid file written',
        async () => (await readFile(pidFile, 'utf8').catch(() => '')) !== '',
      );
      master = Number((await readFile(pidFile, 'utf8')).trim());
      expect(await childrenOf(master)).toEqual([]);
      expect(await refusalSupport(pidFile, { settleMs: 30_000 })).toEqual({ ok: true, workerUid });
    } finally {
      // nginx stops its workers and exits on SIGTERM, and strace, which started it, exits with it.
      if (master !== undefined) process.kill(master, 'SIGTERM');
      else traced.kill('SIGKILL');
      await traced;
      await rm(prefix, { recursive: true, force: true });
    }
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

  /**
   * The old instance's event loop is blocked (held) BEFORE the refusal: POSTS POSTs are sent through
   * nginx; nginx sends about half to it (round robin), which the kernel queues in its accept queue
   * (seen with ss), and the others to the new instance, which answers them. Then, still during the
   * block, nginx's new connections to it are refused, and POSTS more POSTs are sent: all go to the
   * new instance, and the queue does not grow. Returns with the old instance still held.
   */
  async function heldWithQueueThenRefused(tag: string) {
    const old = await startOldInstance(oldAddress);
    const release = join(releaseDir, tag);
    old.child.stdin.write(`hold ${release}\n`);
    await old.waitFor((l) => l === 'blocking');

    const answered: Answer[] = [];
    const first = Array.from({ length: POSTS }, (_, i) =>
      postAnswer('127.0.0.1', nginxPort, `/${tag}/${i}`).then((a) => (answered.push(a), a)),
    );
    // Every POST is either answered (by the new instance) or queued at the old one.
    let queued = 0;
    await until('each POST answered or in the old accept queue', async () => {
      queued = (await queuedAt(oldAddress)) ?? 0;
      return queued + answered.length === POSTS;
    });
    expect(queued).toBeGreaterThanOrEqual(1);
    expect(answered).toEqual(Array.from({ length: POSTS - queued }, () => ({ status: 201, body: 'B' })));

    await refuseConnects(oldAddress, workerUid);
    // The refusal does not touch what is queued: still there while the old instance is held...
    expect(await queuedAt(oldAddress)).toBe(queued);
    // ...and every new POST goes to the new instance; none joins the queue.
    const afterRefusal = await Promise.all(
      Array.from({ length: POSTS }, (_, i) => postAnswer('127.0.0.1', nginxPort, `/${tag}/refused/${i}`)),
    );
    expect(afterRefusal).toEqual(Array.from({ length: POSTS }, () => ({ status: 201, body: 'B' })));
    expect(await queuedAt(oldAddress)).toBe(queued);
    expect(old.lines).not.toContainEqual(expect.stringMatching(/^unblocked/));

    /** Ends the hold: 'close' closes the listener in the tick the block ends, 'serve' does not. */
    const unblock = async (what: 'close' | 'serve') => {
      await writeFile(`${release}.tmp`, what);
      await rename(`${release}.tmp`, release);
      await old.waitFor((l) => l.startsWith('unblocked'));
    };
    return { old, first, queued, unblock };
  }

  it('refused while blocked with connections queued, but closed without waiting: each queued POST gets 502', async () => {
    const errorsBefore = (await nginx.readErrorLog()).length;
    try {
      const { old, first, queued, unblock } = await heldWithQueueThenRefused('queued-unwaited');
      await unblock('close');
      await old.waitFor((l) => l === 'closed');
      const results = await Promise.all(first);
      const statuses = results.map(statusOf);
      console.log(
        `refused, not waited: ${queued} queued at A; ${statuses.filter((s) => s === 502).length} of ${POSTS} got 502 (${statuses.join(' ')})`,
      );
      // Exactly the queued ones: the refusal came too late for them, and the old instance never read one.
      expect(statuses.filter((s) => s === 502)).toHaveLength(queued);
      expect(results.filter((r) => 'body' in r && r.body === 'B')).toHaveLength(POSTS - queued);
      expect(old.requests()).toEqual([]);
      expect((await nginx.readErrorLog()).slice(errorsBefore)).toContain(
        'recv() failed (104: Connection reset by peer)',
      );
    } finally {
      await allowConnects(oldAddress);
    }
  });

  it('refused while blocked with connections queued, then waited for an empty accept queue: no 502', async () => {
    const errorsBefore = (await nginx.readErrorLog()).length;
    try {
      const { old, first, queued, unblock } = await heldWithQueueThenRefused('queued-waited');

      // waitAcceptQueueEmpty on a host that records what each of its ss readings showed.
      const local = createLocalHost();
      const readings: Array<number | undefined> = [];
      const recording: Host = {
        ...local,
        run: async (argv, options) => {
          const ran = await local.run(argv, options);
          readings.push(acceptQueueOf(ran.stdout, oldAddress.host, oldAddress.port));
          return ran;
        },
      };
      let settled: QueueWait | undefined;
      const waiting = waitAcceptQueueEmpty(recording, oldAddress, { boundMs: 5000, pollMs: 20 }).then(
        (wait) => (settled = wait),
      );
      // While the old instance is held, the wait reads the queue, unchanged, and goes on waiting.
      await until('3 readings of the held queue', () => settled !== undefined || readings.length >= 3);
      const whileHeld = readings.length;
      expect(settled, 'the wait ended while the old instance was still held').toBeUndefined();
      await unblock('serve');
      const wait = await waiting;
      console.log(
        `refused, waited: ${queued} queued at A; ss readings ${readings.join(' ')} (${whileHeld} while held); ${JSON.stringify(wait)}`,
      );
      expect(wait).toMatchObject({ empty: true });
      expect(readings.slice(0, whileHeld)).toEqual(Array.from({ length: whileHeld }, () => queued));
      expect(readings.at(-1)).toBe(0);

      // Now it may close its listener: nothing is queued there.
      old.child.stdin.write('close\n');
      await old.waitFor((l) => l === 'closed');
      const results = await Promise.all(first);
      const statuses = results.map(statusOf);
      console.log(
        `refused, waited: ${statuses.filter((s) => s === 502).length} of ${POSTS} got 502 (${statuses.join(' ')})`,
      );
      expect(statuses).toEqual(Array.from({ length: POSTS }, () => 201));
      // The queued ones were served by the old instance once its loop ran again, the others by the new.
      expect(results.filter((r) => 'body' in r && r.body === 'A')).toHaveLength(queued);
      expect(old.requests().filter((url) => url.startsWith('/queued-waited/'))).toHaveLength(queued);
      expect((await nginx.readErrorLog()).slice(errorsBefore)).not.toContain('Connection reset by peer');
      expect((await logged('queued-waited')).filter((line) => line.includes('" 502 '))).toEqual([]);
    } finally {
      await allowConnects(oldAddress);
    }
  });
});

describe('waitAcceptQueueEmpty', () => {
  it('says it cannot see the queue (empty: false, unknown) for a port nothing listens on', async () => {
    const address = { host: '127.0.0.2', port: await pickFreePort('127.0.0.2') };
    const wait = await waitAcceptQueueEmpty(createLocalHost(), address, { boundMs: 1000, pollMs: 20 });
    expect(wait).toMatchObject({
      empty: false,
      unknown: `ss lists no listener at 127.0.0.2:${address.port}`,
    });
    expect('queued' in wait).toBe(false);
  });
});
