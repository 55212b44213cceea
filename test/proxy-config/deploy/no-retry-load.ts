import { Agent, request } from 'node:http';

/** What the non-retrying load saw. */
export interface NoRetryLoadResult {
  get: { total: number; non2xx: number; errors: number };
  post: { total: number; non2xx: number; errors: number };
  statuses: Record<string, number>;
  errorMessages: string[];
  /** Ids of the orders every 2xx POST answered with. */
  createdIds: string[];
  p99: number;
}

/**
 * Load as plain `wrk` sends it: GET and authenticated POST on keep-alive connections, and a request
 * that fails is never sent again (a POST cannot be, safely). `stop()` sends nothing new and waits
 * for the requests in flight.
 */
export function startNoRetryLoad(options: {
  base: string;
  headers: Record<string, string>;
  getPath: string;
  postPath: string;
  postBody: (n: number) => string;
  getConnections?: number;
  postConnections?: number;
  /** Requests per second per connection. */
  rate?: number;
}): { stop(): Promise<NoRetryLoadResult> } {
  const gapMs = 1000 / (options.rate ?? 40);
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const errorMessages: string[] = [];
  const createdIds: string[] = [];
  const counts = {
    get: { total: 0, non2xx: 0, errors: 0 },
    post: { total: 0, non2xx: 0, errors: 0 },
  };
  let running = true;
  let sent = 0;
  const once = (agent: Agent, kind: 'get' | 'post'): Promise<void> =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const count = counts[kind];
      count.total++;
      const body = kind === 'post' ? options.postBody(sent++) : undefined;
      const req = request(
        `${options.base}${kind === 'get' ? options.getPath : options.postPath}`,
        {
          agent,
          method: kind === 'get' ? 'GET' : 'POST',
          headers: {
            ...options.headers,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          timeout: 10_000,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            statuses[String(status)] = (statuses[String(status)] ?? 0) + 1;
            if (status < 200 || status > 299) count.non2xx++;
            else if (kind === 'post') createdIds.push((JSON.parse(text) as { id: string }).id);
            latencies.push(performance.now() - started);
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error) => {
        count.errors++;
        errorMessages.push(`${kind}: ${error.message}`);
        resolve();
      });
      req.end(body);
    });
  const worker = async (kind: 'get' | 'post') => {
    // One agent with one socket per worker: each worker is one keep-alive connection, as in wrk.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    while (running) {
      const started = performance.now();
      await once(agent, kind);
      const left = gapMs - (performance.now() - started);
      if (left > 0 && running) await new Promise((resolve) => setTimeout(resolve, left));
    }
    agent.destroy();
  };
  const workers = [
    ...Array.from({ length: options.getConnections ?? 4 }, () => worker('get')),
    ...Array.from({ length: options.postConnections ?? 2 }, () => worker('post')),
  ];
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      const sorted = latencies.sort((a, b) => a - b);
      return {
        ...counts,
        statuses,
        errorMessages: errorMessages.slice(0, 5),
        createdIds,
        p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0,
      };
    },
  };
}
