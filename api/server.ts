import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { resolveJwtSecret } from './auth/tokens.js';
import { drainWaitMs, type ApiConfig } from './defaults.js';
import { createHealthState } from './health/health-state.js';
import { createApp } from './http/app.js';
import { PROBLEM_MEDIA_TYPE, toProblemType } from './http/problem.js';
import { SERVER_HEADER } from './http/protocol.js';
import { createOrderEventBus } from './events/order-event-bus.js';
import { createOrderLoader } from './events/load-order.js';
import { createGraphqlEndpoint } from './graphql/http/graphql-router.js';
import { attachGraphqlWs } from './graphql/ws-server.js';
import { createStore } from './store/create-store.js';
import { databaseError, listenError } from './startup-errors.js';
import { seedDemoData } from './store/seed.js';
import type { Store } from './store/store.js';
import { answerClientError } from './http/client-error.js';
import { INSTANCE_HEADER } from '../proxy-config/core/render/log-formats.js';

/** How to start the API process. */
export interface ServerOptions {
  config: ApiConfig;
  databaseUrl?: string;
  dataDir?: string;
  redisUrl?: string;
  seed?: boolean;
  logger?: Logger;
  env?: NodeJS.ProcessEnv;
  /** Signals that start a graceful shutdown (with the drain wait); SIGINT skips the wait. */
  signals?: NodeJS.Signals[];
}

/** A listening API; `done` resolves once a shutdown has finished. */
export interface RunningServer {
  url: string;
  server: Server;
  shutdown(reason: string, drain?: boolean): Promise<void>;
  done: Promise<void>;
}

/** How long a slot's old process keeps accepting after it was retired: connections queued before the rename. */
const SLOT_ACCEPT_GRACE_MS = 1_000;

function toUrl(address: AddressInfo): string {
  return `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
}

/** Answers while the store opens: liveness 200, everything else 503 (not yet ready). */
function answerStarting(req: IncomingMessage, res: ServerResponse): void {
  const live = req.url === '/health/live';
  res.setHeader('Server', SERVER_HEADER);
  res.setHeader('Cache-Control', 'no-store');
  if (live) {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"live"}');
    return;
  }
  res.setHeader('Retry-After', '1');
  res.writeHead(503, { 'Content-Type': PROBLEM_MEDIA_TYPE }).end(
    JSON.stringify({
      type: toProblemType('NOT_READY'),
      title: 'Service unavailable',
      status: 503,
      detail: 'the instance is starting',
      instance: req.url,
      code: 'NOT_READY',
      requestId: '',
      phase: 'starting',
    }),
  );
}

/**
 * The rate limiter's Redis client: every command answers or fails within `redisTimeoutMs`, so a
 * stalled Redis costs a bounded wait (then the limiter counts per instance), never a hung request.
 */
function connectRedis(url: string, config: ApiConfig, logger: Logger): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    commandTimeout: config.redisTimeoutMs,
    connectTimeout: config.dbConnectTimeoutMs,
  });
  // ioredis reconnects by itself; without a listener each failed attempt would go to stderr.
  redis.on('error', (error: unknown) => logger.debug({ err: error }, 'Redis connection failed'));
  return redis;
}

/** Resolves or rejects with `promise`, or rejects after `ms`. */
function waitAtMost(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not ready within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Starts the API: listens at once (ready = 503 while starting), opens the store (migrations, optional
 * seed) and Redis, then turns ready. On SIGTERM/SIGQUIT: ready turns 503, the instance keeps serving
 * for the drain wait (interval x threshold + margin), then stops accepting, lets in-flight requests
 * finish (up to the shutdown timeout), closes idle keep-alive sockets, the store and Redis.
 */
export async function startApiServer(options: ServerOptions): Promise<RunningServer> {
  const { config } = options;
  const logger = options.logger ?? pino({ base: { service: 'proxyops-api' } });
  const jwtSecret = resolveJwtSecret(options.env ?? process.env);
  const health = createHealthState('starting');
  let handler: (req: IncomingMessage, res: ServerResponse) => void = answerStarting;
  let inFlight = 0;
  let idle: (() => void) | undefined;
  // Handlers go in before the first log line: a supervisor that signals as soon as it reads "listening"
  // or "ready" must never meet Node's default action (die at once, mid-request).
  let onSignal: (signal: NodeJS.Signals) => void = (signal) => (earlySignal ??= signal);
  let earlySignal: NodeJS.Signals | undefined;
  for (const signal of options.signals ?? ['SIGTERM', 'SIGQUIT', 'SIGINT'])
    process.once(signal, () => onSignal(signal));
  // Behind an upstream slot, a retired instance answers with `Connection: close` so nginx moves each
  // of its kept-alive connections to the slot's new process after one more response.
  let retiredAt: number | undefined;
  const server = createServer((req, res) => {
    inFlight++;
    res.once('close', () => {
      inFlight--;
      if (inFlight === 0) idle?.();
    });
    if (retiredAt !== undefined) res.setHeader('Connection', 'close');
    if (config.instanceName) res.setHeader(INSTANCE_HEADER, config.instanceName);
    handler(req, res);
  });
  server.on('clientError', answerClientError);
  // The proxy must give up an idle upstream connection before we close it (see docs/api.md, "Operations").
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.headersTimeout = config.keepAliveTimeoutMs + 1_000;
  server.requestTimeout = config.requestTimeoutMs;

  // One of a blue/green pair that nginx lists both of: accepting a connection is being in rotation, so
  // the listener opens only once ready, and on a stop signal it closes first (nginx passes refused
  // connections to the next server), as behind a slot.
  const handOver = config.drain === 'hand-over' && !config.socket;
  let url = config.socket ? `unix:${config.socket}` : `http://${config.host}:${config.port}`;
  const listen = async () => {
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(listenError(error, config.host, config.port)));
      // nginx's workers run unprivileged: connect() needs write permission on the socket file.
      if (config.socket)
        server.listen({ path: config.socket, readableAll: true, writableAll: true }, resolve);
      else server.listen(config.port, config.host, () => resolve());
    });
    if (!config.socket) url = toUrl(server.address() as AddressInfo);
    logger.info({ url, phase: health.phase }, 'listening');
  };
  if (!handOver) await listen();
  if (config.socket) {
    process.on('SIGUSR2', () => void (retiredAt ??= Date.now()));
    process.on('SIGHUP', () => void (retiredAt = undefined));
  }

  let store: Store | undefined;
  let redis: Redis | undefined;
  try {
    store = await createStore({
      ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      poolMax: config.dbPoolMax,
      connectTimeoutMs: config.dbConnectTimeoutMs,
      queryTimeoutMs: config.dbQueryTimeoutMs,
    });
    if (options.seed) logger.info(await seedDemoData(store), 'seeded demo data');
    if (options.redisUrl) redis = connectRedis(options.redisUrl, config, logger);
  } catch (error) {
    server.close();
    await store?.close().catch(() => undefined);
    throw options.databaseUrl ? databaseError(error, options.databaseUrl) : error;
  }
  const events = createOrderEventBus({
    ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
    ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}),
    loadOrder: createOrderLoader(store),
    logger,
  });
  // Redis is not required: an event bus that cannot subscribe yet must not keep the instance unready.
  await waitAtMost(events.ready, config.dbConnectTimeoutMs).catch((error: unknown) =>
    logger.warn({ err: error }, 'order events from other instances are not received yet'),
  );
  const graphql = createGraphqlEndpoint({ store, config, logger, jwtSecret, events });
  const app = createApp({
    store,
    config,
    logger,
    jwtSecret,
    health,
    events,
    graphql,
    rateLimitPrefix: config.rateLimitPrefix,
    ...(redis ? { redis } : {}),
  });
  const graphqlWs = attachGraphqlWs(server, graphql, { jwtSecret, logger });
  handler = app;
  health.phase = 'ready';
  if (handOver) await listen();
  logger.info({ url, store: store.kind, redis: Boolean(redis) }, 'ready');

  let resolveDone: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  let shuttingDown: Promise<void> | undefined;
  const openStore = store;

  const shutdown = (reason: string, drain = true): Promise<void> => {
    shuttingDown ??= (async () => {
      if (config.socket || handOver) return drainSlot(reason, drain);
      health.phase = 'draining';
      const waitMs = drain ? drainWaitMs(config) : 0;
      logger.info({ reason, drainWaitMs: waitMs }, 'draining: readiness is 503, still serving');
      await sleep(waitMs);
      logger.info({ inFlight }, 'no longer accepting connections; finishing in-flight requests');
      await graphqlWs.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0)
        await Promise.race([
          new Promise<void>((resolve) => (idle = resolve)),
          sleep(config.shutdownTimeoutMs),
        ]);
      server.closeAllConnections();
      await closed;
      await closeRest();
    })();
    return shuttingDown;
  };

  const closeRest = async () => {
    await events.close().catch((error: unknown) => logger.error({ err: error }, 'closing events failed'));
    await openStore
      .close()
      .catch((error: unknown) => logger.error({ err: error }, 'closing the store failed'));
    if (redis) await redis.quit().catch(() => redis?.disconnect());
    logger.info('stopped');
    resolveDone();
  };
  /**
   * The drain behind an upstream slot (its path already names the new process): accept for a moment
   * longer (connections queued before the rename), stop listening, answer what still arrives with
   * `Connection: close`, and exit once nginx has closed every connection, or after the shutdown
   * timeout. An idle connection is never closed here: nginx may be writing a request on it.
   */
  const drainSlot = async (reason: string, drain: boolean) => {
    health.phase = 'draining';
    retiredAt ??= Date.now();
    // Behind a slot, connections queued before the rename still arrive; a TCP listener just closes.
    if (drain && config.socket) await sleep(Math.max(0, SLOT_ACCEPT_GRACE_MS - (Date.now() - retiredAt)));
    // http.Server#close would also close idle keep-alive connections (Node 19+): stop listening only.
    // The listener closes now, before anything awaits: once the line below is logged, connects are refused.
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    logger.info(
      { reason, inFlight },
      'slot drain: no longer accepting; closing each connection after its next answer',
    );
    await graphqlWs.close();
    const timedOut = await Promise.race([
      closed.then(() => false),
      sleep(config.shutdownTimeoutMs).then(() => true),
    ]);
    if (timedOut) {
      logger.info('slot drain: shutdown timeout reached; closing the connections left');
      server.closeAllConnections();
      await closed;
    }
    await closeRest();
  };

  onSignal = (signal) => void shutdown(signal, signal !== 'SIGINT');
  if (earlySignal) onSignal(earlySignal);

  return { url, server, shutdown, done };
}
