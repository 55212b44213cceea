import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenUrl } from '../core/parse-listen-address.js';

/** Answers one GET (or HEAD) of its path. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** A listening HTTP server and how to stop it. */
export interface RouteListener {
  url: string;
  /** Ends open responses (event streams included) and stops listening. */
  close(): Promise<void>;
}

/**
 * Serves a route table (path → handler) on host:port: GET and HEAD only, 404 for any other path.
 * Rejects with the system's error (EADDRINUSE, EADDRNOTAVAIL) when it cannot listen.
 */
export function serveRoutes(
  host: string,
  port: number,
  routes: Record<string, RouteHandler>,
): Promise<RouteListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const handler = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
    } else if (!handler) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    } else handler(req, res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      resolve({
        url: listenUrl(host, address.port),
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
