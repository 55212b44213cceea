import type { IncomingMessage, ServerResponse } from 'node:http';

/** Server-Sent Events to every connected client. */
export interface EventStream {
  /** The route handler that opens a stream; `first()` gives the event a new client gets at once. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Sends one event to every client; `data` is one line (JSON). */
  send(event: string, data: string): void;
  clients(): number;
  close(): void;
}

/** Proxies drop a stream that says nothing for a minute or so: a comment line keeps it open. */
const HEARTBEAT_MS = 15_000;
/**
 * A client that does not read (a suspended laptop, a stalled proxy) would make Node buffer every event
 * for it. Each event carries the whole report, so one that is still this far behind is skipped instead.
 */
const MAX_BUFFERED_BYTES = 2 * 1024 * 1024;

export function createEventStream(first: () => { event: string; data: string }): EventStream {
  const open = new Set<ServerResponse>();
  const frame = (event: string, data: string) => `event: ${event}\ndata: ${data}\n\n`;
  const heartbeat = setInterval(() => {
    for (const res of open) res.write(':\n\n');
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    handle(req, res) {
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      const { event, data } = first();
      res.write(`retry: 2000\n${frame(event, data)}`);
      open.add(res);
      res.on('close', () => open.delete(res));
    },
    send(event, data) {
      const text = frame(event, data);
      for (const res of open) if (res.writableLength < MAX_BUFFERED_BYTES) res.write(text);
    },
    clients: () => open.size,
    close() {
      clearInterval(heartbeat);
      for (const res of open) res.end();
      open.clear();
    },
  };
}
