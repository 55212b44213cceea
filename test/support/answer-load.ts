import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** One answer the load got, with when it was sent and when it ended (performance.now()). */
export interface Answer {
  sentAt: number;
  endedAt: number;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * GETs to 127.0.0.1:`port` on `connections` keep-alive connections, keeping every answer (status,
 * headers, body); a failed request is counted and never sent again.
 */
export function startAnswerLoad(
  port: number,
  connections: number,
  options: { path?: (n: number) => string; headers?: Record<string, string> } = {},
) {
  const answers: Answer[] = [];
  const errors: string[] = [];
  const path = options.path ?? ((n: number) => `/items/${n}?page=1`);
  let running = true;
  let n = 0;
  const once = (agent: Agent) =>
    new Promise<void>((resolve) => {
      const sentAt = performance.now();
      const req = request(
        { host: '127.0.0.1', port, path: path(n++), headers: options.headers, agent, timeout: 10_000 },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => {
            answers.push({
              sentAt,
              endedAt: performance.now(),
              status: res.statusCode ?? 0,
              headers: res.headers,
              body,
            });
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error) => {
        errors.push(error.message);
        resolve();
      });
      req.end();
    });
  const workers = Array.from({ length: connections }, async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    while (running) {
      await once(agent);
      await sleep(5);
    }
    agent.destroy();
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(workers);
      return { answers, errors };
    },
  };
}

/** One GET to 127.0.0.1:`port` on a fresh connection. */
export const getOnce = (port: number, path: string, headers: Record<string, string> = {}) =>
  new Promise<Omit<Answer, 'sentAt' | 'endedAt'>>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
