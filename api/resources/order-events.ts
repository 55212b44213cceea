import { EventEmitter } from 'node:events';
import type { OrderView } from './views.js';

/** What happened to an order; published after the change is committed. */
export type OrderEvent =
  | { kind: 'order.created'; order: OrderView; requestId: string }
  | { kind: 'order.status-changed'; order: OrderView; from: string; requestId: string };

/** In-process publisher of order events (the GraphQL subscriptions fan these out). */
export interface OrderEvents {
  publish(event: OrderEvent): void;
  /** Calls `listener` for every later event; returns the function that stops it. */
  subscribe(listener: (event: OrderEvent) => void): () => void;
}

/** Creates an in-process event publisher; a throwing listener never breaks the request that published. */
export function createOrderEvents(): OrderEvents {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    publish(event) {
      for (const listener of emitter.listeners('event')) {
        try {
          (listener as (e: OrderEvent) => void)(event);
        } catch {
          // A subscriber's fault is its own; the order change already succeeded.
        }
      }
    },
    subscribe(listener) {
      emitter.on('event', listener);
      return () => emitter.off('event', listener);
    },
  };
}

/**
 * Events held back until `flush`: a write whose commit is decided later (an idempotent request's
 * transaction) announces its changes only once they are committed, and never when they are undone.
 */
export function createEventBuffer(events: OrderEvents): { events: OrderEvents; flush(): void } {
  const held: OrderEvent[] = [];
  return {
    events: {
      publish: (event) => void held.push(event),
      subscribe: (listener) => events.subscribe(listener),
    },
    flush: () => {
      for (const event of held.splice(0)) events.publish(event);
    },
  };
}
