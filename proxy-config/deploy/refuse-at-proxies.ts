import {
  allowConnects,
  refusable,
  refusalSupport,
  refuseConnects,
  type RefusedAddress,
} from '../shell/nginx/refuse-connects.js';

/**
 * Refusing nginx's new connections to an address at every nginx host of a deploy (this machine's
 * nginx, or each of `proxies`), with no reload. The alternate path uses it before the old instance
 * closes its listener, so nothing waits in that listener's accept queue to be reset.
 */
export interface NginxRefusal {
  /** Why it cannot be done here (no nft, not root, …); undefined when it can. */
  readonly unavailable?: string;
  refuse(address: RefusedAddress): Promise<void>;
  /** Lifts a refusal; nothing to do when the address is not refused. */
  allow(address: RefusedAddress): Promise<void>;
}

/** The refusal at this machine's nginx (the one `pidFile` names), for `addresses` (IP literals only). */
export async function localRefusal(pidFile: string, addresses: RefusedAddress[]): Promise<NginxRefusal> {
  const named = addresses.find((a) => !refusable(a));
  const support = named
    ? { ok: false as const, reason: `${named.host} is not an IP address` }
    : await refusalSupport(pidFile);
  if (!support.ok) return unavailable(support.reason);
  return {
    refuse: (address) => refuseConnects(address, support.workerUid),
    allow: allowConnects,
  };
}

/** A refusal that cannot be made, saying why. */
export function unavailable(reason: string): NginxRefusal {
  return {
    unavailable: reason,
    refuse: () => Promise.reject(new Error(`cannot refuse connections: ${reason}`)),
    allow: () => Promise.resolve(),
  };
}

/** For a plan of a deploy across hosts, which refuses nothing: every nginx host said it can. */
export const planOnly: NginxRefusal = {
  refuse: () => Promise.reject(new Error('a plan refuses nothing')),
  allow: () => Promise.resolve(),
};
