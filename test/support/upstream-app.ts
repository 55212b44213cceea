import { createServer, type IncomingMessage, type Server } from 'node:http';

/** What the test upstream saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  remotePort: number;
}

/** A small real HTTP upstream whose behaviour is chosen by path, for driving nginx into each case. */
export interface UpstreamApp {
  port: number;
  seen: SeenRequest[];
  /** Requests to `/hold` still waiting for `release()`. */
  held(): number;
  /** Answers every request held at `/hold` with 200. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Paths: `/echo` answers 200 with the request as JSON; `/status/NNN` answers NNN; `/slow?ms=N`
 * answers after N ms; `/garbage` writes bytes that are not HTTP; `/close` drops the connection
 * without answering; `/headers?Name=value…` (or `…/headers`) answers 200 with each query parameter as a response
 * header and a JSON body numbering the request; `/hold` answers only when `release()` is called;
 * anything else answers 200 "ok".
 */
export function startUpstreamApp(port = 0): Promise<UpstreamApp> {
  const seen: SeenRequest[] = [];
  const holding = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      remotePort: req.socket.remotePort ?? 0,
    });
    const url = new URL(req.url ?? '/', 'http://upstream');
    const status = /^\/status\/(\d{3})$/.exec(url.pathname);
    req.resume();
    if (url.pathname === '/echo') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
    } else if (status) {
      res.statusCode = Number(status[1]);
      res.end(`status ${status[1]}\n`);
    } else if (url.pathname === '/slow') {
      const timer = setTimeout(() => res.end('slow\n'), Number(url.searchParams.get('ms') ?? 1000));
      res.on('close', () => clearTimeout(timer));
    } else if (url.pathname.endsWith('/headers')) {
      for (const [name, value] of url.searchParams) res.appendHeader(name, value);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ n: seen.length, url: req.url, headers: req.headers }));
    } else if (url.pathname === '/hold') {
      const answer = () => res.end('released\n');
      holding.add(answer);
      res.on('close', () => holding.delete(answer));
    } else if (url.pathname === '/garbage') {
      req.socket.end('this is not http\r\n\r\n');
    } else if (url.pathname === '/close') {
      req.socket.destroy();
    } else {
      res.end('ok\n');
    }
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : 0,
        seen,
        held: () => holding.size,
        release: () => {
          for (const answer of [...holding]) {
            holding.delete(answer);
            answer();
          }
        },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
