import { connect as http2Connect } from 'node:http2';
import { connect } from 'node:net';

/**
 * Sends raw bytes on one connection to `host:port` and resolves with the answer's status, or null
 * when the server closes without one. Bytes are sent as given: hostile request lines stay hostile.
 */
export function sendRaw(port: number, bytes: Buffer | string, host = '127.0.0.1'): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host });
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(data);
      if (m && data.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(null));
    socket.write(bytes);
  });
}

/** A whole answer read off a raw connection: status, headers (lower-case names) and body. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one raw request that asks for `Connection: close` and resolves with the answer, read until the
 * server closes: for methods Node's client will not send as written (CONNECT, TRACE with a body, odd tokens).
 */
export function exchangeRaw(port: number, bytes: string, host = '127.0.0.1'): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host });
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        body: rest.join('\r\n\r\n'),
      });
    });
    socket.write(bytes);
  });
}

/** One GET request line and headers, closing the connection after the answer. */
export const rawGet = (path: string, headers = '') =>
  `GET ${path} HTTP/1.1\r\nHost: corpus\r\nConnection: close\r\n${headers}\r\n`;

/** One HTTP/2 GET over cleartext (prior knowledge), as nginx's `listen ... http2` takes it; resolves with the status. */
export function http2Get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = http2Connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request({ ':path': path });
    let status = 0;
    stream.on('response', (headers) => (status = Number(headers[':status'])));
    stream.resume();
    stream.on('end', () => {
      session.close();
      resolve(status);
    });
    stream.on('error', reject);
  });
}
