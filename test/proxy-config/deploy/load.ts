import { Agent, request } from 'node:http';

/** What the load generator saw. */
export interface LoadResult {
  total: number;
  /** Responses with a status outside 2xx, by status. */
  non2xx: number;
  statuses: Record<string, number>;
  /** Requests that got no response at all (reset, refused, timed out). */
  errors: number;
  errorMessages: string[];
  /** Requests sent again because nginx closed their idle keep-alive connection as they were sent. */
  retried: number;
  p99: number;
}

/**
 * Constant load on loopback: `connections` keep-alive connections each sending GET `url` in turn,
 * paced to `rate` requests per second in total. `stop()` sends nothing new and waits for the
 * requests in flight, so stopping the load never cuts a request off.
 *
 * A reload makes nginx's old workers close idle keep-alive connections; a GET written on one at that
 * instant gets no answer. HTTP lets a client send such an idempotent request again (RFC 9112 §9.3.1),
 * and Node documents the check (`req.reusedSocket`): the load does so once, on a new connection,
 * and counts it in `retried`.
 */
export function startLoad(
  url: string,
  headers: Record<string, string>,
  options: { rate?: number; connections?: number; timeoutMs?: number } = {},
): { stop(): Promise<LoadResult> } {
  const connections = options.connections ?? 4;
  const gapMs = (1000 * connections) / (options.rate ?? 150);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const errorMessages: string[] = [];
  let retried = 0;
  let running = true;
  const once = (attempt = 0): Promise<void> =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = request(
        url,
        { agent: attempt === 0 ? agent : false, headers, timeout: options.timeoutMs ?? 10_000 },
        (res) => {
          res.resume();
          res.on('end', () => {
            statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
            latencies.push(performance.now() - started);
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error: NodeJS.ErrnoException) => {
        const closedUnderUs =
          req.reusedSocket && (error.code === 'ECONNRESET' || error.message === 'socket hang up');
        if (closedUnderUs && attempt === 0) {
          retried++;
          resolve(once(1));
          return;
        }
        errorMessages.push(error.message);
        resolve();
      });
      req.end();
    });
  const worker = async () => {
    while (running) {
      const started = performance.now();
      await once();
      const left = gapMs - (performance.now() - started);
      if (left > 0 && running) await new Promise((resolve) => setTimeout(resolve, left));
    }
  };
  const workers = Array.from({ length: connections }, worker);
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      agent.destroy();
      const sorted = latencies.sort((a, b) => a - b);
      const non2xx = Object.entries(statuses)
        .filter(([status]) => !status.startsWith('2'))
        .reduce((sum, [, n]) => sum + n, 0);
      return {
        total: latencies.length + errorMessages.length,
        non2xx,
        statuses,
        errors: errorMessages.length,
        errorMessages: errorMessages.slice(0, 5),
        retried,
        p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0,
      };
    },
  };
}
