import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EventTransport } from './event-transport.js';

/**
 * Redis pub/sub between instances: one connection subscribes (ioredis resubscribes after a
 * reconnect), another publishes. Every subscriber of the channel receives, the sender included.
 */
export function createRedisTransport(options: {
  redisUrl: string;
  channel: string;
  logger?: Logger;
}): EventTransport {
  const subscriber = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  // A stalled Redis must not pile up publishes: each fails after commandTimeout (and is logged).
  const publisher = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, commandTimeout: 1_000 });
  const receivers: Array<(message: string) => void> = [];
  const logError = (error: unknown) =>
    options.logger?.warn({ err: error }, 'order-event Redis connection failed');
  subscriber.on('error', logError);
  publisher.on('error', logError);
  subscriber.on('message', (channel: string, message: string) => {
    if (channel !== options.channel) return;
    for (const receive of receivers) receive(message);
  });
  const ready = subscriber.subscribe(options.channel).then(() => undefined);
  return {
    kind: 'redis',
    ready,
    async send(message) {
      await publisher.publish(options.channel, message);
    },
    onMessage(receive) {
      receivers.push(receive);
    },
    async close() {
      await Promise.all([
        subscriber.quit().catch(() => subscriber.disconnect()),
        publisher.quit().catch(() => publisher.disconnect()),
      ]);
    },
  };
}
