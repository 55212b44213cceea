import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** True when a TCP connection to host:port is accepted within `timeoutMs`. */
export function isAccepting(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (accepting: boolean) => {
      socket.destroy();
      resolve(accepting);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Polls until host:port refuses connections; the milliseconds it took, or undefined past `boundMs`. */
export async function waitUntilRefusing(
  host: string,
  port: number,
  options: { boundMs: number; pollMs: number },
): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < options.boundMs) {
    if (!(await isAccepting(host, port))) return Date.now() - started;
    await sleep(options.pollMs);
  }
  return undefined;
}

/** A TCP port on `host` that was free a moment ago (the OS picks it). */
export function pickFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether this process could listen on host:port now: `ok`, or the system's error code (EADDRINUSE, EACCES). */
export function tryListen(host: string, port: number): Promise<'ok' | string> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    server.listen(port, host, () => server.close(() => resolve('ok')));
  });
}
