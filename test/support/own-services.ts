import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './ports.js';

/**
 * PostgreSQL and Redis servers of a test's own, on high loopback ports, that the test may stop
 * (SIGSTOP), resume, kill and restart without touching the shared ones. PostgreSQL refuses to run as
 * root, so under root it runs as the `postgres` user.
 */
export interface OwnServer {
  url: string;
  /** Sends `signal` to the server and every process it started (a stalled PostgreSQL is all of them). */
  signal(signal: NodeJS.Signals): void;
  /** Kills every process of the server and waits until its port refuses connections. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data (after `kill`). */
  restart(): Promise<void>;
  /** Kills it and removes its files. */
  stop(): Promise<void>;
}

const asPostgresUser = (): Pick<SpawnOptions, 'uid' | 'gid'> => {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) =>
    Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  return { uid: id('-u'), gid: id('-g') };
};

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitForPort(port: number, open: boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await canConnect(port)) === open) return;
    await sleep(50);
  }
  throw new Error(`${what} on port ${port} did not ${open ? 'open' : 'close'}`);
}

/** The process ids of `pid` and its children (PostgreSQL's backends and workers). */
function familyOf(pid: number): number[] {
  const children = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((line) => Number(line.trim()))
    .filter((child) => child > 0);
  return [pid, ...children];
}

function signalAll(pids: number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Gone already: a backend may exit between listing and signalling.
    }
  }
}

function ownServer(options: {
  port: number;
  url: string;
  dir: string;
  launch(): ChildProcess;
  ready(): Promise<void>;
}): Promise<OwnServer> {
  let child: ChildProcess;
  const start = async () => {
    child = options.launch();
    await options.ready();
  };
  const kill = async () => {
    const pid = child.pid;
    if (pid !== undefined && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      signalAll(familyOf(pid), 'SIGKILL');
      await exited;
    }
    await waitForPort(options.port, false, 'the killed server');
  };
  return start().then(() => ({
    url: options.url,
    signal(signal) {
      if (child.pid !== undefined) signalAll(familyOf(child.pid), signal);
    },
    kill,
    restart: start,
    async stop() {
      signalAll(child.pid === undefined ? [] : familyOf(child.pid), 'SIGCONT');
      await kill();
      rmSync(options.dir, { recursive: true, force: true });
    },
  }));
}

/** A fresh PostgreSQL cluster (initdb into a temporary directory), trust auth, on a free port. */
export async function startOwnPostgres(): Promise<OwnServer> {
  const dir = mkdtempSync(join(tmpdir(), 'proxyops-pg-'));
  const user = asPostgresUser();
  if (user.uid !== undefined) chownSync(dir, user.uid, user.gid ?? user.uid);
  const data = join(dir, 'data');
  // Run from its own directory: the postgres user may not reach the checkout (a clone in /root).
  const init = spawnSync('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync'], {
    ...user,
    cwd: dir,
    encoding: 'utf8',
  });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
  ];
  return ownServer({
    port,
    dir,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    launch: () => spawn('postgres', args, { ...user, cwd: dir, stdio: 'ignore' }),
    ready: async () => {
      await waitForPort(port, true, 'PostgreSQL');
      // The port opens before the server accepts logins.
      for (let i = 0; i < 100; i++) {
        const ping = spawnSync('pg_isready', ['-h', '127.0.0.1', '-p', String(port)]);
        if (ping.status === 0) return;
        await sleep(50);
      }
      throw new Error(`PostgreSQL on ${port} never accepted connections`);
    },
  });
}

/** A Redis server without persistence on a free port. */
export async function startOwnRedis(): Promise<OwnServer> {
  const dir = mkdtempSync(join(tmpdir(), 'proxyops-redis-'));
  const port = await freePort();
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ];
  return ownServer({
    port,
    dir,
    url: `redis://127.0.0.1:${port}/0`,
    launch: () => spawn('redis-server', args, { stdio: 'ignore' }),
    ready: () => waitForPort(port, true, 'Redis'),
  });
}
