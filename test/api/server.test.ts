import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_IDS } from '../../api/store/seed.js';
import { DATABASE_URL } from '../support/services.js';
import { send } from './support/http-client.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const SECRET = 'server-test-secret-that-is-long-enough-0123456789';
const { DATABASE_URL: _db, REDIS_URL: _redis, ...baseEnv } = process.env;
const ENV = { ...baseEnv, PROXYOPS_JWT_SECRET: SECRET, NODE_ENV: 'test' };
// Drain wait = 1 s x 2 + 1 s = 3 s: three probes must fit in it on a loaded machine (1 s did not).
const TIMINGS = ['--health-interval-ms', '1000', '--health-threshold', '2', '--drain-margin-ms', '1000'];
const KEEP_ALIVE = ['--keep-alive-ms', '4000', '--proxy-keep-alive-ms', '3000'];

interface Spawned {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  waitFor(msg: string): Promise<Record<string, unknown>>;
  exit: Promise<number | null>;
}

function startCli(args: string[], env: NodeJS.ProcessEnv = {}): Spawned {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ msg: string; resolve: (line: Record<string, unknown>) => void }> = [];
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const part of parts) {
      if (!part.trim()) continue;
      const line = JSON.parse(part) as Record<string, unknown>;
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.msg === line.msg)) waiter.resolve(line);
    }
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    lines,
    exit,
    waitFor(msg) {
      const seen = lines.find((line) => line.msg === msg);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ msg, resolve });
        void exit.then((code) => reject(new Error(`exited ${code} before "${msg}": ${stderr}`)));
      });
    },
  };
}

function cliToken(user: string, role: 'user' | 'admin'): string {
  const result = spawnSync(process.execPath, [CLI, 'api', 'token', '--user', user, '--role', role], {
    env: ENV,
    encoding: 'utf8',
  });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trim();
}

/** Where the spawned API keeps its data: PGlite, or (with DATABASE_URL) a fresh schema on the server. */
const SERVER_STORES = [
  { name: 'pglite', open: async () => ({ env: {}, drop: async () => undefined }) },
  ...(DATABASE_URL
    ? [
        {
          name: 'postgres',
          async open() {
            const schema = `t_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
            const admin = new pg.Client({ connectionString: DATABASE_URL });
            await admin.connect();
            await admin.query(`CREATE SCHEMA ${schema}`);
            await admin.end();
            // libpq-style `options` confines the server process to the schema, as the test harness does.
            const separator = DATABASE_URL.includes('?') ? '&' : '?';
            const url = `${DATABASE_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
            return {
              env: { DATABASE_URL: url },
              async drop() {
                const client = new pg.Client({ connectionString: DATABASE_URL });
                await client.connect();
                await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
                await client.end();
              },
            };
          },
        },
      ]
    : []),
];

// Each test starts a Node process with embedded PostgreSQL; on a busy 2-core machine that takes a while.
const SPAWN_TIMEOUT = 90_000;

describe('the API process (built CLI)', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build (npm test does it first)`);
  });

  describe.each(SERVER_STORES)('graceful shutdown ($name)', ({ name, open }) => {
    let server: Spawned;
    let url: string;
    let store: { env: NodeJS.ProcessEnv; drop(): Promise<void> };
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      if (server?.child.exitCode === null) server.child.kill('SIGKILL');
      await store?.drop();
    });

    it(
      'starts seeded, accepts CLI tokens, advertises its keep-alive timeout and reuses an idle connection',
      async () => {
        server = startCli(['api', '--seed', '--port', '0', ...TIMINGS, ...KEEP_ALIVE], store.env);
        // It listens before the store is open: alive, but not ready until migrations and seed are done.
        url = String((await server.waitFor('listening')).url);
        const early = await send(`${url}/health/ready`);
        const readyBefore = server.lines.some((line) => line.msg === 'ready');
        if (!readyBefore) expect(early.status).toBe(503);
        expect((await send(`${url}/health/live`)).status).toBe(200);
        expect((await server.waitFor('ready')).store).toBe(name);
        const admin = cliToken('any-operator', 'admin');
        expect((await send(`${url}/users`, { token: admin })).status).toBe(200);
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        const get = () =>
          new Promise<{ reused: boolean; keepAlive: string | undefined }>((resolve, reject) => {
            const req = request(`${url}/health/live`, { agent }, (res) => {
              res.resume();
              res.on('end', () =>
                resolve({
                  reused: req.reusedSocket,
                  keepAlive: res.headers['keep-alive'] as string | undefined,
                }),
              );
            });
            req.on('error', reject).end();
          });
        const first = await get();
        expect(first.keepAlive).toBe('timeout=4');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        expect((await get()).reused).toBe(true);
        agent.destroy();
        // Node's parser refuses headers over 16 KiB before Express runs: still a problem body.
        const huge = await send(`${url}/health/live`, { headers: { 'x-big': 'x'.repeat(20_000) } });
        expect(huge.status).toBe(431);
        expect(huge.headers['content-type']).toBe('application/problem+json');
        expect(huge.json()).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE' });
      },
      SPAWN_TIMEOUT,
    );

    it(
      'on SIGTERM: ready turns 503, serving goes on for the drain wait, the in-flight request completes, exit 0',
      async () => {
        const token = cliToken(SEED_IDS.ada, 'user');
        const body = JSON.stringify({ items: [{ productName: 'Slow upload', quantity: 2, unitPrice: 3.5 }] });
        const half = Math.floor(body.length / 2);
        // A request in flight: headers and half the body now, the rest only after the drain is over.
        let counted: () => void = () => undefined;
        const accepted = new Promise<void>((resolve) => (counted = resolve));
        const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = request(
            `${url}/orders`,
            {
              method: 'POST',
              agent: false,
              headers: {
                authorization: `Bearer ${token}`,
                'content-type': 'application/json',
                'content-length': Buffer.byteLength(body),
                // Node answers 100 Continue as it hands the request over: proof it is in flight.
                expect: '100-continue',
              },
            },
            (res) => {
              let text = '';
              res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
            },
          );
          req.on('error', reject);
          req.on('continue', () => counted());
          req.write(body.slice(0, half));
          void server
            .waitFor('no longer accepting connections; finishing in-flight requests')
            .then(() => setTimeout(() => req.end(body.slice(half)), 200));
        });
        // A fixed 100 ms sleep stood in for this: wait until the server has the request in flight.
        await Promise.race([accepted, inFlight]);
        expect((await send(`${url}/health/ready`)).status).toBe(200);

        server.child.kill('SIGTERM');
        const draining = await server.waitFor('draining: readiness is 503, still serving');
        expect(draining.drainWaitMs).toBe(1000 * 2 + 1000);
        const ready = await send(`${url}/health/ready`);
        expect(ready.status).toBe(503);
        expect(ready.json().phase).toBe('draining');
        expect((await send(`${url}/health/live`)).status).toBe(200);
        expect((await send(`${url}/users/${SEED_IDS.ada}`, { token })).status).toBe(200);

        await server.waitFor('no longer accepting connections; finishing in-flight requests');
        await expect(send(`${url}/health/live`)).rejects.toThrow(/ECONNREFUSED|ECONNRESET|socket hang up/);
        const finished = await inFlight;
        expect(finished.status).toBe(201);
        expect(JSON.parse(finished.body).totalPrice).toBe(7);
        expect(await server.exit).toBe(0);
        expect(server.lines.some((line) => line.msg === 'stopped')).toBe(true);
      },
      SPAWN_TIMEOUT,
    );
  });

  it(
    'SIGQUIT (the container stop signal) shuts down the same graceful way',
    async () => {
      const server = startCli(['api', '--port', '0', ...TIMINGS, ...KEEP_ALIVE]);
      await server.waitFor('ready');
      server.child.kill('SIGQUIT');
      expect((await server.waitFor('draining: readiness is 503, still serving')).reason).toBe('SIGQUIT');
      expect(await server.exit).toBe(0);
    },
    SPAWN_TIMEOUT,
  );

  it(
    '--drain hand-over: listens only once ready; on SIGTERM closes its listener first, answers open connections with Connection: close, never closes an idle one, exits once they are closed',
    async () => {
      const server = startCli(['api', '--port', '0', '--drain', 'hand-over', ...TIMINGS, ...KEEP_ALIVE]);
      // One of a blue/green pair: accepting a connection is being in rotation, so not before ready.
      const listening = await server.waitFor('listening');
      expect(listening.phase).toBe('ready');
      const url = String(listening.url);
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const get = () =>
        new Promise<{ status: number; connection: string | undefined; reused: boolean }>(
          (resolve, reject) => {
            const req = request(`${url}/health/live`, { agent }, (res) => {
              res.resume();
              res.on('end', () =>
                resolve({
                  status: res.statusCode ?? 0,
                  connection: res.headers.connection,
                  reused: req.reusedSocket,
                }),
              );
            });
            req.on('error', reject).end();
          },
        );
      expect((await get()).connection).toBe('keep-alive');
      server.child.kill('SIGTERM');
      await server.waitFor('slot drain: no longer accepting; closing each connection after its next answer');
      // No drain wait: new connections are refused at once (a proxy passes them to the next server).
      await expect(send(`${url}/health/live`)).rejects.toThrow(/ECONNREFUSED/);
      // The idle keep-alive connection was left open: the next request on it is answered, then closed.
      const last = await get();
      expect(last).toMatchObject({ status: 200, connection: 'close', reused: true });
      agent.destroy();
      expect(await server.exit).toBe(0);
    },
    SPAWN_TIMEOUT,
  );

  it(
    'refuses to start in production with the development signing secret',
    async () => {
      const { PROXYOPS_JWT_SECRET: _secret, ...env } = ENV;
      const result = spawnSync(process.execPath, [CLI, 'api', '--port', '0'], {
        env: { ...env, NODE_ENV: 'production' },
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.status).not.toBe(0);
      expect(result.stderr).toContain('PROXYOPS_JWT_SECRET');
    },
    SPAWN_TIMEOUT,
  );

  it('rejects a bad option with exit code 2 and one line naming it', () => {
    const result = spawnSync(process.execPath, [CLI, 'api', '--port', 'eighty'], {
      env: ENV,
      encoding: 'utf8',
    });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('--port');
  });
});
