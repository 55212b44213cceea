import type { ProxySpecInput } from '../spec/apply-spec-defaults.js';
import { DEFAULTS } from '../spec/defaults.js';

/** What the local stack is made of. Durations are seconds. */
export interface LocalStackInput {
  dir: string;
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
 * The spec of `proxyops up`: nginx on 127.0.0.1:PORT in front of the API instances, every runtime
 * file under `dir`, an unbuffered access log (the deploy reads it as it goes) and a deploy section
 * that starts `proxyops api` on a fresh socket behind a slot (or, without slots, on a new port).
 */
export function planLocalStackSpec(input: LocalStackInput): ProxySpecInput {
  return {
    version: 1,
    layerName: 'proxyops-local',
    paths: {
      pidFile: `${input.dir}/nginx.pid`,
      tempDir: `${input.dir}/temp`,
      maintenanceDir: `${input.dir}/maintenance`,
    },
    workers: { processes: 1, connections: 1024, rlimitNofile: 4096 },
    accessLog: { path: `${input.dir}/logs/access.log`, format: 'text', buffer: null, flush: null },
    errorLog: { path: `${input.dir}/logs/error.log`, level: 'warn' },
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
