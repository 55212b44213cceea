import { ProxyopsError } from './errors.js';

/**
 * Where to listen: `HOST:PORT`, `[IPv6]:PORT`, or `PORT` alone on 127.0.0.1; port 0 lets the system
 * choose (the URL printed says which).
 */
export function parseListenAddress(value: string, flag: string): { host: string; port: number } {
  const match = /^(?:(?:\[([0-9a-fA-F:.]+)\]|([^:[\]\s]+)):)?(\d{1,5})$/.exec(value);
  const port = Number(match?.[3]);
  if (!match || !(port >= 0 && port <= 65535))
    throw new ProxyopsError(
      'BAD_OPTION',
      `${flag} wants HOST:PORT (e.g. 127.0.0.1:9180) or a port, got "${value}"`,
    );
  return { host: match[1] ?? match[2] ?? '127.0.0.1', port };
}

/** The URL of a listener: IPv6 hosts in brackets. */
export function listenUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
}
