import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { expect } from 'vitest';
import { waitUntilReady } from '../../../proxy-config/shell/process/wait-until-ready.js';
import { freePort } from '../../support/ports.js';
import { startTestHosts, type TestHosts } from '../../support/ssh-hosts.js';
import { startNoRetryLoad, type NoRetryLoadResult } from './no-retry-load.js';
import { adminToken, CLI, SEED_USER } from './stack-harness.js';

/**
 * Two nginx hosts (web1, web2) in front of the project's API on two app hosts (app1, app2), each
 * app host with a blue/green pair of ports; every host a network namespace with its own sshd. The
 * API instances reach the real PostgreSQL through its unix socket (not namespaced).
 */
export const WEB = ['web1', 'web2', 'web3'] as const;
export const APPS = ['app1', 'app2'] as const;
const PG_SOCKET_DIR = '/var/run/postgresql';
const DB_URL = `postgresql://postgres@/test?host=${PG_SOCKET_DIR}`;

export interface Fleet {
  hosts: TestHosts;
  mp: string;
  nginxPort: number;
  pair: [number, number];
  /** The spec with every nginx host in proxies. */
  specPath: string;
  /** The same spec for the nginx hosts `webs` only. */
  specFor(webs: readonly string[]): Promise<string>;
  /** Runs `deploy --spec SPEC` from this machine's `--dir` with `--json` and more `args`, to its end. */
  deploy(specPath: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Starts the same deploy (`env` added to its own); `until` waits for a line of its output matching `pattern`. */
  startDeploy(
    specPath: string,
    env?: Record<string, string>,
  ): {
    until(pattern: RegExp): Promise<void>;
    kill(signal: NodeJS.Signals): void;
    done: Promise<{ code: number; stdout: string }>;
  };
  auth: Record<string, string>;
  address(name: string): string;
  /** Runs the built CLI here with the hosts' ssh config. */
  proxyops(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The instances recorded on an nginx host, `HOST:PORT` sorted. */
  recorded(web: string): Promise<string[]>;
}

/** The lifecycle hooks' script (run on an app host, with `bin/proxyops` beside it): start an API instance in the background, or stop one (SIGTERM). */
export const APP_SCRIPT = `#!/bin/sh
# app.sh start|stop HOST PORT DIR
case "$1" in
start)
  # A test makes a host's start fail by leaving this file there.
  [ -e "$4/fail-start" ] && { echo "start refused on purpose"; exit 1; }
  # And slows it down with this one (a round of a batch that ends after the other).
  [ -e "$4/slow-start" ] && sleep 2
  # A faulty script: a subshell left holding the hook's output (ssh's, run over ssh).
  [ -e "$4/hold-output" ] && (sleep 20) &
  DATABASE_URL='${DB_URL}' PROXYOPS_RATE_LIMIT=10000000 PROXYOPS_PROXY_KEEP_ALIVE_MS=2000 \\
  PROXYOPS_HEALTH_INTERVAL_MS=500 PROXYOPS_HEALTH_THRESHOLD=2 PROXYOPS_DRAIN_MARGIN_MS=500 \\
    setsid "$(dirname "$0")/bin/proxyops" api --seed --host "$2" --port "$3" --drain hand-over >> "$4/app-$3.log" 2>&1 < /dev/null &
  echo $! > "$4/app-$3.pid" ;;
stop)
  kill -TERM "$(cat "$4/app-$3.pid")" && rm -f "$4/app-$3.pid" ;;
esac
`;

export async function startFleet(): Promise<Fleet> {
  const { stdout } = await execa('ls', ['-a', PG_SOCKET_DIR], { reject: false });
  if (!stdout.includes('.s.PGSQL.5432'))
    throw new Error(
      `these tests need PostgreSQL's unix socket in ${PG_SOCKET_DIR} (the server on 127.0.0.1:5432)`,
    );
  const hosts = await startTestHosts([...WEB, ...APPS], { trusted: true, routed: true });
  const mp = hosts.host('web1').mountPoint;
  const nginxPort = await freePort();
  let second = await freePort();
  const first = await freePort();
  while (second === first) second = await freePort();
  const pair: [number, number] = [first, second];
  const script = join(hosts.root, 'app.sh');
  await writeFile(script, APP_SCRIPT);
  await chmod(script, 0o755);
  for (const name of [...WEB, ...APPS])
    for (const sub of ['run', 'logs', 'temp', 'apps'])
      await mkdir(join(hosts.host(name).dir, sub), { recursive: true, mode: 0o755 });
  const address = (name: string) => hosts.host(name).address;
  const hook = (action: string) => [script, action, '{host}', '{port}', `${mp}/apps`];
  const spec = {
    version: 1,
    paths: { pidFile: `${mp}/run/nginx.pid`, tempDir: `${mp}/temp` },
    workers: { processes: 2 },
    accessLog: { path: `${mp}/logs/access.log`, buffer: null, flush: null },
    errorLog: { path: `${mp}/logs/error.log` },
    upstreams: {
      app: {
        servers: APPS.map((name) => ({
          host: address(name),
          port: pair[0],
          alternate: pair[1],
          ssh: name,
          maxFails: 1,
          failTimeout: 1,
        })),
        keepaliveTimeout: 2,
        healthCheck: { interval: 0.5, failureThreshold: 2, margin: 0.5 },
        deploy: {
          watch: 1.5,
          readyTimeout: 30,
          stopTimeout: 15,
          start: hook('start'),
          stop: hook('stop'),
        },
      },
    },
    servers: [
      {
        names: ['localhost'],
        listen: [{ address: '0.0.0.0', port: nginxPort, defaultServer: true }],
        routes: [{ path: '/', upstream: 'app' }],
      },
    ],
  };
  const specFor = async (webs: readonly string[]) => {
    const path = join(hosts.root, `spec-${webs.join('-')}.json`);
    const proxies = webs.map((ssh) => ({ ssh, target: `${mp}/etc` }));
    await writeFile(path, `${JSON.stringify({ ...spec, proxies }, null, 2)}\n`);
    return path;
  };
  const specPath = await specFor(WEB);

  const proxyops = async (...args: string[]) => {
    const result = await execa('node', [CLI, ...args], {
      reject: false,
      timeout: 240_000,
      env: { ...hosts.env, DATABASE_URL: '' },
    });
    return { code: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
  };
  // The first instances, started as their owner would, one at a time (the first one migrates).
  for (const name of APPS) {
    hosts.exec(name, [script, 'start', address(name), String(pair[0]), `${mp}/apps`]);
    expect(await serving(address(name), pair[0])).toBe(true);
  }
  const applied = await proxyops('config', 'apply', '--spec', specPath);
  expect(applied.code, applied.stderr).toBe(0);
  for (const name of WEB) {
    hosts.exec(name, ['nginx', '-c', `${mp}/etc/current/nginx.conf`]);
    expect(await serving(address(name), nginxPort)).toBe(true);
  }
  const auth = { authorization: `Bearer ${await adminToken()}`, accept: 'application/json' };
  // Every gate at its default, as a user's deploy runs.
  const deployArgs = (path: string) => [
    'deploy',
    '--spec',
    path,
    '--dir',
    join(hosts.root, 'here'),
    '--json',
  ];
  return {
    hosts,
    mp,
    nginxPort,
    pair,
    specPath,
    specFor,
    deploy: (path, ...args) => proxyops(...deployArgs(path), ...args),
    startDeploy(path, env = {}) {
      const child = execa('node', [CLI, ...deployArgs(path)], {
        reject: false,
        timeout: 240_000,
        env: { ...hosts.env, DATABASE_URL: '', ...env },
      });
      let out = '';
      const waiting: Array<{ pattern: RegExp; resolve: () => void }> = [];
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        for (const w of waiting.splice(0))
          if (w.pattern.test(out)) w.resolve();
          else waiting.push(w);
      });
      const done = child.then((r) => ({ code: r.exitCode ?? -1, stdout: out }));
      return {
        until: (pattern) =>
          pattern.test(out)
            ? Promise.resolve()
            : Promise.race([
                new Promise<void>((resolve) => waiting.push({ pattern, resolve })),
                done.then((r) => {
                  throw new Error(`the deploy ended before ${pattern}: ${r.stdout}`);
                }),
              ]),
        // Only the signal (execa's kill would SIGKILL it 5 s later).
        kill: (signal) => process.kill(child.pid!, signal),
        done,
      };
    },
    auth,
    address,
    proxyops,
    async recorded(web) {
      const text = await readFile(join(hosts.host(web).dir, 'etc', 'instances.json'), 'utf8');
      const state = JSON.parse(text) as {
        upstreams: { app: Array<{ host: string; port: number; inUpstream: boolean }> };
      };
      return state.upstreams.app
        .filter((i) => i.inUpstream)
        .map((i) => `${i.host}:${i.port}`)
        .sort();
    },
  };
}

export async function serving(host: string, port: number): Promise<boolean> {
  return (await waitUntilReady(`http://${host}:${port}/health/ready`, { boundMs: 30_000, pollMs: 100 }))
    .ready;
}

/** A load that never retries, GET and POST, through every nginx host at once. */
export function loadThroughAll(fleet: Fleet): { stop(): Promise<NoRetryLoadResult[]> } {
  const loads = WEB.map((web) =>
    startNoRetryLoad({
      base: `http://${fleet.address(web)}:${fleet.nginxPort}`,
      headers: fleet.auth,
      getPath: `/users/${SEED_USER}`,
      postPath: '/orders',
      postBody: (n) =>
        JSON.stringify({ items: [{ productName: `fleet-${web}-${n}`, quantity: 1, unitPrice: 2.5 }] }),
      getConnections: 3,
      postConnections: 2,
      // 300 req/s in all: a request in flight every few ms at each switch, and CPU left on the two
      // cores for the other test file CI runs beside this one (saturation is busy-core-deploy's).
      rate: 20,
    }),
  );
  return { stop: () => Promise.all(loads.map((l) => l.stop())) };
}

/** How many of the orders 2xx POSTs reported are in the database. */
export async function storedCount(ids: string[]): Promise<number> {
  const client = new pg.Client({ connectionString: DB_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'SELECT count(*) AS n FROM orders WHERE id = ANY($1::uuid[])',
      [ids],
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
