import { canonicalHost } from '../deploy/refusal.js';

/**
 * Connections waiting in the accept queue of the listener at `host:port`, from `ss -Hltn` output
 * (for a listening socket, Recv-Q is that queue's length); undefined when no such listener is
 * listed. A listener on the wildcard address (`0.0.0.0`, `*`, `[::]`) takes `host`'s connections too.
 */
export function acceptQueueOf(ssOutput: string, host: string, port: number): number | undefined {
  // ss prints an address one way (`::1`); the spec may spell it another (`0:0:0:0:0:0:0:1`).
  const wanted = canonicalHost(host);
  let queued: number | undefined;
  for (const line of ssOutput.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4 || fields[0] !== 'LISTEN') continue;
    const local = fields[3]!;
    const colon = local.lastIndexOf(':');
    if (Number(local.slice(colon + 1)) !== port) continue;
    // `127.0.0.1`, `[::1]`, `*`, `0.0.0.0`, `[::]`, maybe with `%iface`.
    const address = local
      .slice(0, colon)
      .replace(/%.*$/, '')
      .replace(/^\[|\]$/g, '');
    if (!['*', '0.0.0.0', '::', wanted].includes(address === '*' ? address : canonicalHost(address)))
      continue;
    queued = (queued ?? 0) + Number(fields[1]);
  }
  return queued;
}
