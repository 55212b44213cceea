// Paced keep-alive load on loopback for the deploy bench (same rules as the test load generator:
// stop() waits for requests in flight). With `retry`, a GET written on a keep-alive connection that an
// old nginx worker closed at a reload is sent once more on a new connection and counted as `retried`;
// without it (as wrk, ab and hey), and for a POST (`body`), nothing is ever sent again.
import { Agent, request } from 'node:http';

export function startLoad(url, headers, { rate = 150, connections = 4, retry = true, body } = {}) {
  const gapMs = (1000 * connections) / rate;
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const statuses = {};
  const latencies = [];
  let errors = 0;
  let retried = 0;
  let running = true;
  const once = (attempt = 0) =>
    new Promise((resolve) => {
      const started = performance.now();
      const options = {
        agent: attempt === 0 ? agent : false,
        headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
        method: body ? 'POST' : 'GET',
        timeout: 10_000,
      };
      const req = request(url, options, (res) => {
        res.resume();
        res.on('end', () => {
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          latencies.push(performance.now() - started);
          resolve();
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error) => {
        if (
          retry &&
          !body &&
          attempt === 0 &&
          req.reusedSocket &&
          (error.code === 'ECONNRESET' || error.message === 'socket hang up')
        ) {
          retried++;
          resolve(once(1));
          return;
        }
        errors++;
        resolve();
      });
      req.end(body?.());
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
        served: latencies.length,
        failed: errors + non2xx,
        errors,
        non2xx,
        retried,
        p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0,
      };
    },
  };
}
