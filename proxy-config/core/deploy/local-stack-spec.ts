import { createHash } from 'node:crypto';
import type { WorkerPath } from '../apply/worker-access.js';
import type { ProxySpecInput } from '../spec/apply-spec-defaults.js';
import { DEFAULTS } from '../spec/defaults.js';

/** What the local stack is made of. Durations are seconds. */
export interface LocalStackInput {
  dir: string;
  /** Where what nginx's workers open goes (slots, temp files, logs): `dir` or a runtime directory (see `stackRuntimeDirs`). */
  runtimeDir: string;
  /** nginx's listening port on 127.0.0.1. */
  port: number;
  /** TCP ports of the instances (the reload path), or, with `slots`, none. */
  instancePorts: number[];
  /** Unix socket slots nginx connects to (the path without a reload); replaces `instancePorts`. */
  slots?: string[];
  /** argv prefix that runs the proxyops CLI (node and its main.js). */
  cli: string[];
  healthCheck: { interval: number; failureThreshold: number; margin: number };
  watch: number;
  max5xxIncrease: number | null;
}

/** nginx's upstream keepalive_timeout in seconds for slots: how long an old process may wait for nginx to let go of it. */
const SLOT_KEEPALIVE_S = 4;

/** Name of the local stack's upstream pool. */
export const LOCAL_UPSTREAM = 'api';

/**
 * The spec of `proxyops up`: nginx on 127.0.0.1:PORT in front of the API instances, what the
 * workers open (slots, temp files, logs) under `runtimeDir`, the rest under `dir`, an unbuffered access log (the deploy reads it as it goes) and a deploy section
 * that starts `proxyops api` on a fresh socket behind a slot (or, without slots, on a new port).
 */
export function planLocalStackSpec(input: LocalStackInput): ProxySpecInput {
  return {
    version: 1,
    layerName: 'proxyops-local',
    // The master writes the pid file before it switches user; the workers open the rest (and test
    // the maintenance flags on every request).
    paths: {
      pidFile: `${input.dir}/nginx.pid`,
      tempDir: `${input.runtimeDir}/temp`,
      maintenanceDir: `${input.runtimeDir}/maintenance`,
    },
    workers: { processes: 1, connections: 1024, rlimitNofile: 4096 },
    accessLog: { path: `${input.runtimeDir}/logs/access.log`, format: 'text', buffer: null, flush: null },
    errorLog: { path: `${input.runtimeDir}/logs/error.log`, level: 'warn' },
    upstreams: {
      [LOCAL_UPSTREAM]: {
        servers: input.slots
          ? input.slots.map((socket) => ({ socket }))
          : input.instancePorts.map((port) => ({ host: '127.0.0.1', port })),
        // Behind a slot an old process exits once nginx closed its idle connections: keep them short-lived.
        ...(input.slots
          ? { keepaliveTimeout: SLOT_KEEPALIVE_S, app: { keepAliveTimeout: SLOT_KEEPALIVE_S + 1 } }
          : {}),
        healthCheck: { readinessPath: '/health/ready', ...input.healthCheck },
        deploy: {
          ...DEFAULTS.deploy,
          command: [
            ...input.cli,
            'api',
            ...(input.slots ? ['--socket', '{socket}'] : ['--host', '{host}', '--port', '{port}']),
          ],
          watch: input.watch,
          max5xxIncrease: input.max5xxIncrease,
        },
      },
    },
    servers: [
      {
        // No default server: a request naming another Host gets the catch-all's 421, never the API.
        names: ['localhost', '127.0.0.1'],
        listen: [{ address: '127.0.0.1', port: input.port }],
        // websocket: GraphQL subscriptions (graphql-ws) reach the instances through nginx.
        routes: [{ path: '/', upstream: LOCAL_UPSTREAM, websocket: true }],
      },
    ],
  };
}

/** The directories of a local stack's runtime directory that nginx's workers open files in. */
export const STACK_WORKER_DIRS = ['slots', 'temp', 'logs'] as const;

/** The local stack's directories that nginx's workers must reach, in a candidate runtime directory. */
export function stackWorkerPaths(runtimeDir: string): WorkerPath[] {
  const what = { slots: 'the slot directory', temp: 'the temp directory', logs: 'the log directory' };
  return STACK_WORKER_DIRS.map((sub) => ({ path: `${runtimeDir}/${sub}`, need: 'search', what: what[sub] }));
}

/** Where the runtime files of `up` in `dir` may go when no directory is forced, first choice first. */
export function stackRuntimeDirs(dir: string, root: boolean): string[] {
  // A root master's workers run as another user, who may not traverse `dir` (root's home is 0700):
  // then a directory of /run of this stack's own, named by `dir` so two stacks never share one.
  // Anyone else's workers are that user: `dir` is theirs.
  return root ? [dir, `/run/proxyops/${createHash('sha256').update(dir).digest('hex').slice(0, 12)}`] : [dir];
}
