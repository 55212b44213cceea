import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { ProxyopsError } from '../../core/errors.js';

/** Answers one GET (or HEAD) of its path; may stream (a live page keeps the response open). */
export type RouteHandler = (request: IncomingMessage, response: ServerResponse) => void | Promise<void>;

/** A listener serving a route table; `close()` ends it and every open response. */
export interface RoutesServer {
  host: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `routes` (exact paths, query ignored) on HOST:PORT: 404 for other paths, 405 for methods but
 * GET and HEAD, 500 when a handler throws. Several features mount on one listener by sharing the table
 * (e.g. /metrics beside a live page). `option` names the flag in a listen error.
 */
export function serveHttpRoutes(
  host: string,
  port: number,
  routes: Record<string, RouteHandler>,
  option: string,
): Promise<RoutesServer> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0]!;
    const handler = Object.hasOwn(routes, path) ? routes[path] : undefined;
    if (!handler) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return void response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end();
    Promise.resolve()
      .then(() => handler(request, response))
      .catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`${(error as Error).message}\n`);
      });
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenFailure(error, host, port, option)));
    server.listen(port, host, () => {
      const address = server.address();
      resolve({
        host,
        port: typeof address === 'object' && address ? address.port : port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function listenFailure(error: NodeJS.ErrnoException, host: string, port: number, option: string): unknown {
  const where = `${host}:${port}`;
  if (error.code === 'EADDRINUSE')
    return new ProxyopsError(
      'PORT_IN_USE',
      `cannot listen on ${where}: another process uses that port; choose another with ${option}`,
      { cause: error },
    );
  if (error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
    return new ProxyopsError(
      'LISTEN_FAILED',
      `cannot listen on ${where} (${error.code}): ${error.code === 'EACCES' ? 'ports below 1024 need root; give a port of 1024 or more' : 'that address is not on this machine; give a local one'} with ${option}`,
      { cause: error },
    );
  return error;
}
