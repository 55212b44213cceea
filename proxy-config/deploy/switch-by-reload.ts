import { toAddress } from '../core/deploy/plan-deploy.js';
import type { InstanceRecord } from '../shell/stack-state.js';
import { pickFreePort } from '../shell/process/tcp-accepting.js';
import { fetchStatus } from '../shell/process/wait-until-ready.js';
import type { TrafficSwitch } from './traffic-switch.js';

/**
 * Traffic moves by config changes: the new instance (on a free port of the old one's host) is added
 * to the upstream, and later the old one taken out, each change validated, swapped and reloaded
 * (`apply`). Back: the config of `servers` applied again.
 */
export function reloadSwitch(
  upstream: string,
  apply: (servers: InstanceRecord[]) => Promise<void>,
): TrafficSwitch {
  return {
    path: 'reload',
    tcp: true,
    async place(old) {
      const address = { host: old.host, port: await pickFreePort(old.host) };
      return { address, logName: `instance-${address.port}.log`, where: toAddress(address) };
    },
    probe: (instance, path) => fetchStatus(`http://${toAddress(instance)}${path}`),
    async switchIn(fresh, _old, current) {
      await apply([...current, fresh]);
      return { oldOut: false, outcome: `${toAddress(fresh)} is in upstream ${upstream}` };
    },
    switchBack: (_fresh, _old, servers) => apply(servers),
    takeOut: (_old, rest) => apply(rest),
    // The new instance's own requests are the ones whose last attempt went to its address.
    key: (instance) => ({ address: toAddress(instance) }),
    release: () => Promise.resolve(),
  };
}
