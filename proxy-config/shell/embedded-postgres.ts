import { createServer, type Server, type Socket } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import {
  CANCEL_REQUEST,
  ENCRYPTION_REQUESTS,
  splitPgFrames,
  untypedCode,
  type PgFrame,
} from '../core/deploy/pg-message-frames.js';
import { readListenChange, splitBackendOutput } from '../core/deploy/pg-notifications.js';
import { ProxyopsError } from '../core/errors.js';

/** An embedded PostgreSQL (PGlite) reachable over the wire protocol by several processes. */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * Serves one PGlite session to many clients. PGlite has a single backend, so each client's batch
 * (messages up to Sync or Query) runs as a whole, and a client that leaves a transaction open keeps
 * the database until it ends it. Serving message by message (as pglite-socket 0.2 does) lets two
 * clients' Parse/Bind interleave on the one unnamed statement and answer one with the other's rows.
 */
export async function startEmbeddedPostgres(options: {
  host: string;
  port: number;
  dataDir?: string;
}): Promise<EmbeddedPostgres> {
  const db = await PGlite.create(options.dataDir);
  let owner: Socket | undefined;
  let waiters: Array<() => void> = [];
  const acquire = async (client: Socket) => {
    while (owner !== undefined && owner !== client)
      await new Promise<void>((resolve) => waiters.push(resolve));
    owner = client;
  };
  const release = (client: Socket) => {
    if (owner !== client) return;
    owner = undefined;
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };

  // Channels each client listens on: the one session's notifications are handed to these clients.
  const listening = new Map<Socket, Set<string>>();
  const deliver = (channel: string, bytes: Buffer) => {
    for (const [listener, channels] of listening)
      if (channels.has(channel) && listener.writable) listener.write(bytes);
  };

  const runBatch = async (client: Socket, batch: PgFrame[]) => {
    await acquire(client);
    try {
      await db.runExclusive(async () => {
        let rest: Buffer = Buffer.alloc(0);
        for (const frame of batch)
          await db.execProtocolRawStream(frame.bytes, {
            onRawData: (data) => {
              const split = splitBackendOutput(Buffer.concat([rest, data]));
              rest = Buffer.from(split.rest);
              if (split.passThrough.length > 0 && client.writable) client.write(split.passThrough);
              for (const notification of split.notifications)
                deliver(notification.channel, notification.bytes);
            },
          });
        if (rest.length > 0 && client.writable) client.write(rest);
      });
    } finally {
      if (!db.isInTransaction()) release(client);
    }
  };

  const clients = new Set<Socket>();
  const serve = (client: Socket) => {
    clients.add(client);
    client.setNoDelay(true);
    let pending: Buffer = Buffer.alloc(0);
    let startup = true;
    let batch: PgFrame[] = [];
    let chain = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      const { frames, rest } = splitPgFrames(Buffer.concat([pending, chunk]), startup);
      pending = Buffer.from(rest);
      for (const frame of frames) {
        if (frame.untyped) {
          const code = untypedCode(frame);
          if (ENCRYPTION_REQUESTS.has(code)) {
            client.write('N');
            continue;
          }
          if (code === CANCEL_REQUEST) {
            client.end();
            return;
          }
          startup = false;
        }
        // Terminate ends this client only; the one PGlite session stays for the others.
        if (frame.type === 'X') {
          client.end();
          return;
        }
        const change = readListenChange(frame.type, frame.bytes);
        if (change) {
          const channels = listening.get(client) ?? new Set<string>();
          listening.set(client, channels);
          if ('listen' in change) channels.add(change.listen);
          else if ('unlisten' in change) channels.delete(change.unlisten);
          else channels.clear();
        }
        batch.push(frame);
        if (!frame.endsBatch) continue;
        const ready = batch;
        batch = [];
        chain = chain
          .then(() => runBatch(client, ready))
          .catch(() => {
            client.destroy();
          });
      }
    });
    const closed = () => {
      clients.delete(client);
      listening.delete(client);
      void chain.then(async () => {
        if (owner === client) {
          if (db.isInTransaction()) await db.exec('ROLLBACK').catch(() => undefined);
          release(client);
        }
      });
    };
    client.on('close', closed);
    client.on('error', () => client.destroy());
  };

  const server: Server = createServer(serve);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (error) {
    await db.close().catch(() => undefined);
    throw new ProxyopsError(
      'DATABASE_START_FAILED',
      `cannot serve the embedded database on ${options.host}:${options.port}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    url: `postgresql://postgres:postgres@${options.host}:${port}/postgres?sslmode=disable`,
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const client of clients) client.destroy();
      await closed;
      await db.close();
    },
  };
}
