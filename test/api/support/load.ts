import { request } from 'node:http';

/** What one request of a load run ended as: a status, or `timeout`/`error` when no answer came. */
export interface Outcome {
  status: number | 'timeout' | 'error';
  retryAfter?: string;
  contentType?: string;
  code?: string;
}

/** One request over a fresh connection, never retried; gives up after `timeoutMs`. */
export function attempt(url: string, token: string, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const outcome: Outcome = { status };
        const retryAfter = res.headers['retry-after'];
        if (retryAfter !== undefined) outcome.retryAfter = retryAfter;
        if (res.headers['content-type']) outcome.contentType = res.headers['content-type'];
        if (status >= 400) {
          try {
            outcome.code = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code?: string }).code;
          } catch {
            outcome.code = '(not JSON)';
          }
        }
        resolve(outcome);
      });
      res.on('error', () => resolve({ status: 'error' }));
    });
    req.setTimeout(timeoutMs, () => {
      req.destroy();
      resolve({ status: 'timeout' });
    });
    req.on('error', () => resolve({ status: 'error' }));
    req.end();
  });
}

/**
 * A bounded load: `clients` loops, each sending one request after the other (no retries) until
 * `durationMs` has passed. Returns every outcome.
 */
export async function runLoad(options: {
  url: string;
  token: string;
  durationMs: number;
  clients: number;
  timeoutMs: number;
}): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const until = Date.now() + options.durationMs;
  const client = async () => {
    while (Date.now() < until) outcomes.push(await attempt(options.url, options.token, options.timeoutMs));
  };
  await Promise.all(Array.from({ length: options.clients }, client));
  return outcomes;
}

/** Counts outcomes by status (`200: 41, 503: 12, timeout: 3`). */
export function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status } of outcomes) counts[String(status)] = (counts[String(status)] ?? 0) + 1;
  return counts;
}
