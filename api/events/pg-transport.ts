import pg from 'pg';
import type { Logger } from 'pino';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { EventTransport } from './event-transport.js';

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const RECONNECT_MS = 1_000;

/**
 * PostgreSQL LISTEN/NOTIFY between instances on one server. One dedicated connection listens (and
 * reconnects after a loss); notifications go out on the same connection. NOTIFY is delivered to
 * every listener of the channel, the sender included.
 */
export function createPgTransport(options: {
  databaseUrl: string;
  channel: string;
  logger?: Logger;
}): EventTransport {
  if (!CHANNEL_NAME.test(options.channel))
    throw new ProxyopsError(
      'BAD_OPTION',
      `event channel ${JSON.stringify(options.channel)} is not a plain name`,
    );
  const receivers: Array<(message: string) => void> = [];
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<pg.Client> => {
    const next = new pg.Client({ connectionString: options.databaseUrl });
    next.on('notification', (message) => {
      if (message.channel !== options.channel || message.payload === undefined) return;
      for (const receive of receivers) receive(message.payload);
    });
    const reconnect = (error?: unknown) => {
      if (closed || client !== next) return;
      client = undefined;
      options.logger?.warn({ err: error }, 'order-event listener lost its connection; reconnecting');
      timer = setTimeout(() => void connect().catch(reconnect), RECONNECT_MS);
    };
    next.on('error', reconnect);
    next.on('end', () => reconnect());
    await next.connect();
    await next.query(`LISTEN ${options.channel}`);
    client = next;
    return next;
  };

  const ready = connect().then(() => undefined);
  return {
    kind: 'postgres',
    ready,
    async send(message) {
      await ready;
      if (!client) throw new ProxyopsError('EVENTS_UNAVAILABLE', 'the order-event connection is down');
      await client.query('SELECT pg_notify($1, $2)', [options.channel, message]);
    },
    onMessage(receive) {
      receivers.push(receive);
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => undefined);
    },
  };
}
