import { setTimeout as sleep } from 'node:timers/promises';
import { splitByInstance } from '../core/deploy/log-window.js';
import { toAddress } from '../core/deploy/plan-deploy.js';
import { ProxyopsError } from '../core/errors.js';
import type { InstanceRecord } from '../shell/stack-state.js';
import { isAccepting } from '../shell/process/tcp-accepting.js';
import { fetchStatus } from '../shell/process/wait-until-ready.js';
import type { NginxRefusal } from './refuse-at-proxies.js';
import type { TrafficSwitch } from './traffic-switch.js';

/**
 * After the refusal, how long the old instance is left to accept what completed its handshake just
 * before: its event loop takes those from the accept queue within a few milliseconds, even when busy.
 */
const ACCEPT_QUEUE_SETTLE_MS = 250;

/**
 * Traffic moves between the two addresses of a blue/green pair that the rendered upstream lists
 * both of (the spec's `alternate`): no config change, no reload. The idle address refuses
 * connections, which nginx passes to the next server (a request never sent upstream, so even a POST).
 * The new instance gets requests once it accepts connections; the old one leaves by closing its
 * listener first; where `refusal` can, nginx's new connections to it are refused before that (the
 * plan's `remove` step), so none waits in its accept queue to be reset. Back: the new instance is
 * stopped, its address refuses again; a refused old instance is allowed again.
 */
export function alternateSwitch(
  alternateOf: (old: InstanceRecord) => { host: string; port: number },
  refusal: NginxRefusal,
): TrafficSwitch {
  return {
    path: 'alternate',
    tcp: true,
    async place(old) {
      const address = alternateOf(old);
      // An instance is known by its address: the idle one of the pair must be idle.
      if (await isAccepting(address.host, address.port))
        throw new ProxyopsError(
          'ALTERNATE_BUSY',
          `${toAddress(address)}, the alternate of ${toAddress(old)}, already accepts connections: something else listens there (stop it, or deploy with --replace ${toAddress(old)} --with ${toAddress(address)}); nothing changed`,
        );
      return { address, logName: `instance-${address.port}.log`, where: toAddress(address) };
    },
    probe: (instance, path) => fetchStatus(`http://${toAddress(instance)}${path}`),
    switchIn(fresh, old) {
      return Promise.resolve({
        oldOut: false,
        outcome: `${toAddress(fresh)} gets requests beside ${toAddress(old)} (both are in the upstream; no reload)`,
      });
    },
    // Stopping the new instance (the runner's next move) is what sends its traffic back.
    switchBack: (_fresh, old) => refusal.allow(old),
    async takeOut(old) {
      await refusal.refuse(old);
      await sleep(ACCEPT_QUEUE_SETTLE_MS);
    },
    split: (kit, text, fresh) => splitByInstance(kit, text, { address: toAddress(fresh) }),
    // Once it has left, its address refuses by itself; the next deploy starts an instance there.
    release: (instance) => refusal.allow(instance),
  };
}
