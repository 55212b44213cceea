/** Express's compiled "trust proxy" setting: is the peer at `address`, `hop` hops away, a trusted proxy? */
export type TrustFunction = (address: string | undefined, hop: number) => boolean;

/** How many addresses a memoized trust function remembers per hop before it starts afresh. */
const MAX_REMEMBERED = 10_000;

/**
 * Remembers the answers of a trust function. Express asks it several times per request (the client
 * address, the scheme, the host, the access log's request id), and each time it parses the address
 * again; its answer depends on the address and the hop alone, and the addresses are few.
 */
export function memoizeTrust(trust: TrustFunction): TrustFunction {
  const byHop: Array<Map<string, boolean>> = [];
  return (address, hop) => {
    // A unix-socket peer (an nginx upstream slot) has no address: it is a process of this machine
    // that may open the socket file, trusted as loopback is (so X-Forwarded-* count behind a slot).
    if (address === undefined) return hop === 0 && trust('127.0.0.1', hop);
    const known = (byHop[hop] ??= new Map());
    let answer = known.get(address);
    if (answer === undefined) {
      if (known.size >= MAX_REMEMBERED) known.clear();
      answer = trust(address, hop);
      known.set(address, answer);
    }
    return answer;
  };
}
