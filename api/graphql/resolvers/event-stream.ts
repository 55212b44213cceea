import type { OrderEvent, OrderEvents } from '../../resources/order-events.js';

/** Events a slow subscriber may have waiting before older ones are dropped. */
const BUFFER_LIMIT = 1_000;

/**
 * Turns the order-event publisher into the async iterator a GraphQL subscription returns, keeping
 * only events `accept` lets through. Stops listening when the client completes or disconnects.
 */
export function streamOrderEvents(
  events: OrderEvents,
  accept: (event: OrderEvent) => boolean,
): AsyncIterableIterator<OrderEvent> {
  const buffered: OrderEvent[] = [];
  let waiting: ((result: IteratorResult<OrderEvent>) => void) | undefined;
  let done = false;
  const unsubscribe = events.subscribe((event) => {
    if (done || !accept(event)) return;
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve({ value: event, done: false });
      return;
    }
    buffered.push(event);
    if (buffered.length > BUFFER_LIMIT) buffered.shift();
  });
  const finish = (): Promise<IteratorResult<OrderEvent>> => {
    done = true;
    unsubscribe();
    buffered.length = 0;
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
    return Promise.resolve({ value: undefined, done: true });
  };
  return {
    next() {
      const event = buffered.shift();
      if (event) return Promise.resolve({ value: event, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: finish,
    throw: (error: unknown) => finish().then(() => Promise.reject(error)),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
