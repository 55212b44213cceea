import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { createOrderEvents, type OrderEvent, type OrderEvents } from '../resources/order-events.js';
import type { OrderView } from '../resources/views.js';
import { createMemoryTransport, type EventTransport } from './event-transport.js';
import { createPgTransport } from './pg-transport.js';
import { createRedisTransport } from './redis-transport.js';

/** Order events shared by every API instance; `close` stops listening. */
export interface OrderEventBus extends OrderEvents {
  readonly transport: EventTransport['kind'];
  /** Resolves once events from other instances are received. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Where events travel, picked from the configuration. */
export interface EventBusOptions {
  redisUrl?: string;
  databaseUrl?: string;
  /** Instances share events only within one channel (tests give each schema its own). */
  channel?: string;
  /** Reloads an order whose event was too large to travel whole (PostgreSQL NOTIFY holds < 8000 bytes). */
  loadOrder?: (orderId: string, baseUrl: string) => Promise<OrderView | null>;
  logger?: Logger;
}

/** Largest message sent whole; a bigger event travels as a reference and is reloaded. */
const MAX_MESSAGE_BYTES = 7_500;

interface Envelope {
  origin: string;
  event?: OrderEvent;
  ref?: { kind: OrderEvent['kind']; orderId: string; baseUrl: string; from?: string; requestId: string };
}

/** Picks the transport: Redis pub/sub with REDIS_URL, else LISTEN/NOTIFY on a PostgreSQL server, else memory. */
export function createEventTransport(options: EventBusOptions): EventTransport {
  const channel = options.channel ?? 'proxyops_order_events';
  if (options.redisUrl)
    return createRedisTransport({
      redisUrl: options.redisUrl,
      channel,
      ...(options.logger ? { logger: options.logger } : {}),
    });
  if (options.databaseUrl)
    return createPgTransport({
      databaseUrl: options.databaseUrl,
      channel,
      ...(options.logger ? { logger: options.logger } : {}),
    });
  // Embedded PGlite in this process: it owns the database, so it owns the bus. (The instances of
  // `proxyops up` reach their shared embedded database through DATABASE_URL and use LISTEN/NOTIFY.)
  return createMemoryTransport();
}

function baseUrlOf(order: OrderView): string {
  return order._links.self.href.slice(0, -`/orders/${order.id}`.length);
}

/**
 * The order events of this instance fanned out to all instances: a local subscriber hears a local
 * event at once; other instances hear it through the transport (this instance skips its own echo).
 */
export function createOrderEventBus(options: EventBusOptions = {}): OrderEventBus {
  const local = createOrderEvents();
  const transport = createEventTransport(options);
  const origin = randomUUID();
  const warn = (error: unknown, message: string) => options.logger?.warn({ err: error }, message);

  transport.onMessage((message) => {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(message) as Envelope;
    } catch (error) {
      return warn(error, 'ignored an order event that is not JSON');
    }
    if (envelope.origin === origin) return;
    if (envelope.event) return local.publish(envelope.event);
    const ref = envelope.ref;
    if (!ref || !options.loadOrder) return;
    options
      .loadOrder(ref.orderId, ref.baseUrl)
      .then((order) => {
        if (!order) return;
        local.publish(
          ref.kind === 'order.created'
            ? { kind: ref.kind, order, requestId: ref.requestId }
            : { kind: ref.kind, order, from: ref.from ?? '', requestId: ref.requestId },
        );
      })
      .catch((error: unknown) => warn(error, 'could not reload the order of an event'));
  });

  return {
    transport: transport.kind,
    ready: transport.ready,
    publish(event) {
      local.publish(event);
      if (transport.kind === 'memory') return;
      let message = JSON.stringify({ origin, event } satisfies Envelope);
      if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES)
        message = JSON.stringify({
          origin,
          ref: {
            kind: event.kind,
            orderId: event.order.id,
            baseUrl: baseUrlOf(event.order),
            requestId: event.requestId,
            ...(event.kind === 'order.status-changed' ? { from: event.from } : {}),
          },
        } satisfies Envelope);
      transport
        .send(message)
        .catch((error: unknown) => warn(error, 'an order event did not reach other instances'));
    },
    subscribe: (listener) => local.subscribe(listener),
    close: () => transport.close(),
  };
}
