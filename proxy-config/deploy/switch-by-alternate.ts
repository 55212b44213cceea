import { setTimeout as sleep } from 'node:timers/promises';
import { ACCEPT_QUEUE_BOUND_MS, toAddress } from '../core/deploy/plan-deploy.js';
import { ProxyopsError } from '../core/errors.js';
import type { Host } from '../shell/host/host.js';
import { waitAcceptQueueEmpty } from '../shell/process/accept-queue.js';
import type { InstanceRecord } from '../shell/stack-state.js';
import { isAccepting } from '../shell/process/tcp-accepting.js';
import { fetchStatus } from '../shell/process/wait-until-ready.js';
import type { NginxRefusal } from './refuse-at-proxies.js';
import type { TrafficSwitch } from './traffic-switch.js';

const QUEUE_POLL_MS = 20;
/** nginx reads its clock once per event loop turn: a moment more than its whole seconds. */
const NGINX_CLOCK_SLACK_MS = 200;
/** Where `ss` cannot see the queue (the listener in a container's own namespace): a fixed wait. */
const QUEUE_UNSEEN_WAIT_MS = 500;

/** What the alternate path needs of the deploy around it. */
export interface AlternateOptions {
  /** The other address of `old`'s pair, and the pair's fail_timeout (seconds). */
  alternateOf: (old: InstanceRecord) => { host: string; port: number; failTimeout: number };
  /** Refusing nginx's new connections at every nginx host. */
  refusal: NginxRefusal;
  /** How long a refusal may be needed: the old instance's drain and exit, at most. */
  refuseBoundMs: number;
  /** The host an instance runs on (where its accept queue is seen). */
  hostOf: (instance: InstanceRecord) => Host;
}

/**
 * Traffic moves between the two addresses of a blue/green pair that the rendered upstream lists
 * both of (the spec's `alternate`): no config change, no reload. The idle address refuses
 * connections, which nginx passes to the next server (a request never sent upstream, so even a POST).
 * The new instance gets requests once it accepts connections; the old one leaves by closing its
 * listener first. Where every nginx host can, nginx's new connections to the old one are refused
 * before that (the plan's `remove` step) and its accept queue is let empty, so no connection
 * waits there to be reset. Back: the new instance is stopped, its address refuses again, and a
 * refused old instance is allowed again.
 */
export function alternateSwitch(options: AlternateOptions): TrafficSwitch {
  const { alternateOf, refusal } = options;
  /** Addresses whose new connections this switch had refused: nginx's workers may count them down. */
  const refused = new Set<string>();
  /** Refuses nginx's new connections to `instance` and lets its accept queue empty: what may close its listener then. */
  const refuseAndEmpty = async (instance: InstanceRecord) => {
    await refusal.refuse(instance, options.refuseBoundMs);
    refused.add(toAddress(instance));
    return waitAcceptQueueEmpty(options.hostOf(instance), instance, {
      boundMs: ACCEPT_QUEUE_BOUND_MS,
      pollMs: QUEUE_POLL_MS,
    });
  };
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
      // A refusal an earlier deploy left there (it died half-way) would keep nginx off the new instance.
      await refusal.allow(address);
      return { address, logName: `instance-${address.port}.log`, where: toAddress(address) };
    },
    probe: (instance, path) => fetchStatus(`http://${toAddress(instance)}${path}`),
    switchIn(fresh, old) {
      return Promise.resolve({
        oldOut: false,
        outcome: `${toAddress(fresh)} gets requests beside ${toAddress(old)} (both are in the upstream; no reload)`,
      });
    },
    // Stopping the new instance (the runner's next move) is what sends its traffic back. Should a
    // lost nginx host still refuse the old one, this throws and the new instance is left serving.
    async switchBack(fresh, old) {
      await refusal.allow(old);
      // A refused connect counts as a failure: nginx's workers took the old address out for
      // fail_timeout, which they count in whole seconds (one more). Refused or stopped before then,
      // the new one would be out too, and a pair alone in its upstream would answer "no live
      // upstreams" to everything meanwhile.
      if (refused.delete(toAddress(old)))
        await sleep((alternateOf(old).failTimeout + 1) * 1000 + NGINX_CLOCK_SLACK_MS);
      // As for an old instance that leaves: nothing may wait in its accept queue when it closes its
      // listener (a POST nginx wrote there would get a reset). Where nothing can be refused, it is
      // stopped as it is.
      await refuseAndEmpty(fresh).catch(() => undefined);
    },
    async takeOut(old) {
      const queue = await refuseAndEmpty(old);
      const refused = `nginx's new connections to ${toAddress(old)} are refused (no reload); its open ones go on`;
      if (queue.empty) return `${refused}; its accept queue is empty (${queue.ms} ms)`;
      if ('queued' in queue)
        return `${refused}; ${queue.queued} connection(s) still wait in its accept queue after ${queue.ms} ms (its event loop is blocked?): they are reset if it closes its listener now`;
      await sleep(QUEUE_UNSEEN_WAIT_MS);
      return `${refused}; its accept queue cannot be seen (${queue.unknown}): waited ${QUEUE_UNSEEN_WAIT_MS} ms`;
    },
    key: (instance) => ({ address: toAddress(instance) }),
    // An instance that left refuses by itself. One told to stop that did not leave keeps its
    // refusal: nginx must not send it new requests again (it may still be stopping, or be stuck).
    release(instance, left) {
      if (!left) return Promise.resolve();
      refused.delete(toAddress(instance));
      return refusal.allow(instance);
    },
  };
}
