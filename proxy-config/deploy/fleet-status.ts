import type { RecordedState } from '../core/apply/apply-steps-protocol.js';
import { toAddress } from '../core/deploy/plan-deploy.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { checkRemoteProxyops } from '../shell/host/remote-proxyops.js';
import { createSshHost } from '../shell/host/ssh-host.js';
import { openStepSession, type StepAnswer } from '../shell/host/step-session.js';
import { isAccepting } from '../shell/process/tcp-accepting.js';
import { fetchStatus } from '../shell/process/wait-until-ready.js';
import type { InstanceRecord } from '../shell/stack-state.js';

/** One nginx host's `status` answer over a session of its own (no lock). */
async function askStatus({
  ssh,
  target,
}: ProxySpec['proxies'][number]): Promise<Extract<StepAnswer, { step: 'status' }>> {
  const host = createSshHost(ssh);
  try {
    await checkRemoteProxyops(host);
    const session = openStepSession(host, target);
    const answer = await session.request({ step: 'status' });
    await session.end();
    if (answer.step !== 'status')
      throw new ProxyopsError('REMOTE_STEP_FAILED', `answered ${answer.step} to status`);
    return answer;
  } finally {
    await host.close();
  }
}

/** How one nginx host stands, as `deploy status` shows it. */
export type ProxyStatus =
  | {
      host: string;
      live?: string;
      /** The instances of the upstream this host records as serving. */
      instances: string[];
      deploy?: { pid: number; round: number; step: number; kind: string };
    }
  | { host: string; error: string };

/** How one recorded instance answers its readiness check from here. */
export interface InstanceStatus {
  address: string;
  ssh?: string;
  status: number;
}

/**
 * Every nginx host's state (reached at once; one that cannot be reached says why), the readiness
 * of every instance they record, and `strays`: the spec's addresses (either of a pair) that accept
 * connections while no nginx host records them as serving, and no deploy runs (a round left
 * unfinished by a killed deploy leaves its new instance there). Nothing is locked or changed.
 */
export async function readFleetStatus(
  spec: ProxySpec,
  upstream: string,
): Promise<{ proxies: ProxyStatus[]; instances: InstanceStatus[]; strays: InstanceStatus[] }> {
  const proxies = await Promise.all(
    spec.proxies.map(async (proxy): Promise<ProxyStatus> => {
      try {
        const answer = await askStatus(proxy);
        return {
          host: proxy.ssh,
          instances: serving(answer.state, upstream),
          ...(answer.live ? { live: answer.live } : {}),
          ...(answer.deploy ? { deploy: answer.deploy } : {}),
        };
      } catch (error) {
        return { host: proxy.ssh, error: (error as Error).message };
      }
    }),
  );
  const pool = spec.upstreams[upstream]!;
  const recorded = proxies.flatMap((p) => ('instances' in p ? p.instances : []));
  const addresses = [
    ...new Set(
      recorded.length > 0 ? recorded : pool.servers.map((s) => toAddress({ host: s.host, port: s.port })),
    ),
  ];
  const instances = await Promise.all(
    addresses.map(async (address) => {
      const host = address.slice(0, address.lastIndexOf(':'));
      const ssh = pool.servers.find((s) => s.host === host || s.alternate?.host === host)?.ssh;
      const status = await fetchStatus(`http://${address}${pool.healthCheck.readinessPath}`);
      return { address, status, ...(ssh ? { ssh } : {}) };
    }),
  );
  const deploying = proxies.some((p) => 'deploy' in p && p.deploy);
  const unrecorded = deploying
    ? []
    : pool.servers.flatMap((s) =>
        [{ host: s.host, port: s.port }, ...(s.alternate ? [s.alternate] : [])]
          .filter((at) => !addresses.includes(toAddress(at)))
          .map((at) => ({ at, ssh: s.ssh })),
      );
  const strays = (
    await Promise.all(
      unrecorded.map(async ({ at, ssh }) =>
        (await isAccepting(at.host, at.port))
          ? [{ address: toAddress(at), status: 0, ...(ssh ? { ssh } : {}) }]
          : [],
      ),
    )
  ).flat();
  return { proxies, instances, strays };
}

function serving(state: RecordedState | undefined, upstream: string): string[] {
  const list = (state?.upstreams[upstream] ?? []) as InstanceRecord[];
  return list
    .filter((i) => i.inUpstream)
    .map(toAddress)
    .sort();
}
