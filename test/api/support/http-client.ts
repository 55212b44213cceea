import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** A response as tests inspect it. */
export interface TestResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON (throws when it is not). */
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Options of one real HTTP request. */
export interface RequestOptions {
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  token?: string;
}

/** Sends one request over a fresh loopback connection and reads the whole response. */
export function send(url: string, options: RequestOptions = {}): Promise<TestResponse> {
  const headers: Record<string, string | number> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined && headers['content-length'] === undefined)
    headers['content-length'] = Buffer.byteLength(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Sends a JSON body (`application/json`). */
export function sendJson(url: string, method: string, body: unknown, options: RequestOptions = {}) {
  return send(url, {
    ...options,
    method,
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...options.headers },
  });
}
