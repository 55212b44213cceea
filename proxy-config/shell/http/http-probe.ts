import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ProxyopsError } from '../../core/errors.js';
import type { ProbeAnswer } from '../../core/diagnose/evidence.js';
import { PROBE_HEADERS } from '../../core/version.js';

/** Options of one probe request. */
export interface ProbeOptions {
  method: 'GET' | 'HEAD' | 'POST';
  /** Bytes of body to send (POST). */
  bodyBytes?: number;
  /** Accept self-signed certificates (a staging host, a test). */
  insecure?: boolean;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_BODY_READ = 64 * 1024;
const NGINX_PAGE = /<center>nginx(?:\/[\d.]+)?<\/center>/;

function header(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Sends one request to `url` and describes the answer, without following redirects. A body the
 * server rejects early may reset the connection after the answer; the answer still counts.
 */
export function probeOnce(url: string, options: ProbeOptions): Promise<ProbeAnswer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = send(
      target,
      {
        method: options.method,
        rejectUnauthorized: !options.insecure,
        headers: {
          ...PROBE_HEADERS,
          ...(options.bodyBytes !== undefined
            ? { 'content-length': String(options.bodyBytes), 'content-type': 'application/octet-stream' }
            : {}),
        },
        timeout: timeoutMs,
      },
      (response) => {
        answered = true;
        let body = '';
        response.setEncoding('latin1');
        response.on('data', (chunk: string) => {
          if (body.length < MAX_BODY_READ) body += chunk;
        });
        const finish = () =>
          resolve({
            status: response.statusCode ?? 0,
            server: header(response, 'server'),
            nginxPage: NGINX_PAGE.test(body),
            location: header(response, 'location'),
            cacheControl: header(response, 'cache-control'),
            age: header(response, 'age'),
            contentType: header(response, 'content-type'),
          });
        // A layer that rejects early may reset the connection: whatever arrived still counts.
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', finish);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => {
      if (answered) return;
      reject(
        new ProxyopsError('PROBE_FAILED', `${options.method} ${url} failed: ${error.message}`, {
          cause: error,
        }),
      );
    });
    if (options.bodyBytes) writeBody(req, options.bodyBytes);
    else req.end();
  });
}

function writeBody(req: ReturnType<typeof httpRequest>, bytes: number): void {
  const chunk = Buffer.alloc(Math.min(bytes, 64 * 1024), 0x61);
  let left = bytes;
  const pump = () => {
    while (left > 0 && !req.destroyed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      if (!req.write(piece)) {
        req.once('drain', pump);
        return;
      }
    }
    if (!req.destroyed) req.end();
  };
  pump();
}
