import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createEventTransport } from '../../../api/events/order-event-bus.js';
import type { EventTransport } from '../../../api/events/event-transport.js';
import {
  startEmbeddedPostgres,
  type EmbeddedPostgres,
} from '../../../proxy-config/shell/embedded-postgres.js';

describe('the embedded PostgreSQL of proxyops up, shared by several clients', () => {
  let db: EmbeddedPostgres;
  const open: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    db = await startEmbeddedPostgres({ host: '127.0.0.1', port: 0 });
  }, 60_000);
  afterAll(async () => {
    for (const item of open) await item.close().catch(() => undefined);
    await db?.stop();
  });

  it('delivers a NOTIFY sent by one client to every other client that LISTENs, and to no one else', async () => {
    const connect = async () => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      open.push({ close: () => client.end() });
      return client;
    };
    const [listener, other, sender] = [await connect(), await connect(), await connect()];
    const heard: string[] = [];
    const strays: string[] = [];
    listener.on('notification', (n) => heard.push(`${n.channel}:${n.payload}`));
    other.on('notification', (n) => strays.push(`${n.channel}:${n.payload}`));
    sender.on('notification', (n) => strays.push(`${n.channel}:${n.payload}`));
    await listener.query('LISTEN orders');
    await other.query('LISTEN audit');

    await sender.query("NOTIFY orders, 'first'");
    await sender.query("SELECT pg_notify('orders', $1)", ['second']);
    // Delivery goes through the database process: poll's default 1 s is short on a loaded machine.
    await expect.poll(() => heard, { timeout: 10_000 }).toEqual(['orders:first', 'orders:second']);

    await listener.query('UNLISTEN orders');
    await sender.query("NOTIFY orders, 'third'");
    // The sender's own query result still arrives whole after a notification is taken out of it.
    expect((await sender.query('SELECT 40 + 2 AS answer')).rows).toEqual([{ answer: 42 }]);
    expect(heard).toEqual(['orders:first', 'orders:second']);
    expect(strays).toEqual([]);
  });

  it('carries order events between two API instances on the LISTEN/NOTIFY transport', async () => {
    const a: EventTransport = createEventTransport({ databaseUrl: db.url, channel: 'up_events' });
    const b: EventTransport = createEventTransport({ databaseUrl: db.url, channel: 'up_events' });
    open.push(a, b);
    expect(a.kind).toBe('postgres');
    const onA: string[] = [];
    a.onMessage((message) => onA.push(message));
    await Promise.all([a.ready, b.ready]);
    await b.send('order cancelled on B');
    await expect.poll(() => onA, { timeout: 10_000 }).toEqual(['order cancelled on B']);
  });
});
