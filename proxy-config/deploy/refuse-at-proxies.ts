import type { HostRefusal, RefusedAddress } from '../core/deploy/refusal.js';
import { ProxyopsError } from '../core/errors.js';
import { allowConnects, refusalSupport, refuseConnects } from '../shell/nginx/refuse-connects.js';

/**
 * Refusing nginx's new connections to an address at every nginx host of a deploy (this machine's
 * nginx, or each of `proxies`), with no reload. The alternate path uses it before the old instance
 * closes its listener, so nothing waits in that listener's accept queue to be reset.
 */
export interface NginxRefusal {
  /** `boundMs`: how long the deploy may need it; a host the deploy loses lifts it by itself then. */
  refuse(address: RefusedAddress, boundMs: number): Promise<void>;
  /** Lifts a refusal; nothing to do when the address is not refused. */
  allow(address: RefusedAddress): Promise<void>;
}

/** This machine's nginx (the one `pidFile` names): what it says of refusing, and the refusal. */
export async function localRefusal(pidFile: string): Promise<{ host: HostRefusal; refusal: NginxRefusal }> {
  const support = await refusalSupport(pidFile);
  const host = { host: 'this machine', ...(support.ok ? {} : { unrefusable: support.reason }) };
  if (support.ok)
    return {
      host,
      refusal: { refuse: (address) => refuseConnects(address, support.workerUid), allow: allowConnects },
    };
  return {
    host,
    refusal: {
      refuse: () =>
        Promise.reject(new ProxyopsError('REFUSE_FAILED', `cannot refuse connections: ${support.reason}`)),
      // A rule an earlier deploy left (when nginx ran otherwise) goes if it can; else there is none.
      allow: (address) => allowConnects(address).catch(() => undefined),
    },
  };
}

/** Where nothing is refused: a `deploy plan`, or a deploy without blue/green pairs. */
export const NOTHING_REFUSED: NginxRefusal = {
  refuse: () =>
    Promise.reject(new ProxyopsError('REFUSE_FAILED', 'nothing is refused in a plan or without pairs')),
  allow: () => Promise.resolve(),
};
