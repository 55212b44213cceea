import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import {
  compareLiveWithPlan,
  upstreamServers,
  type LiveNginxPicture,
  type PlannedServer,
} from '../core/deploy/compare-live-with-plan.js';
import { toAddress } from '../core/deploy/plan-deploy.js';
import { isProxyopsError, ProxyopsError } from '../core/errors.js';
import { MAIN_CONFIG_FILE } from '../core/render/render-nginx-config.js';
import { followsTargetCurrent } from '../shell/nginx/master-runs-target.js';
import { readLiveMasterPid } from '../shell/nginx/nginx-master.js';
import { dumpRunningConfig, runningNginxAt } from '../shell/nginx/running-nginx.js';
import type { InstanceRecord } from '../shell/stack-state.js';
import { pairOf, type DeployContext } from './deploy-context.js';
import type { TrafficSwitch } from './traffic-switch.js';
import { checkAdoptedDeploy, unadoptedMessage } from './adopted-nginx.js';
import type { Fleet } from './fleet.js';

/** What the live nginx behind `pidFile` runs; undefined when no master runs there. */
export async function readLivePicture(
  pidFile: string,
  target: string,
  upstream: string,
  adopted?: string,
): Promise<LiveNginxPicture | undefined> {
  const pid = await readLiveMasterPid(pidFile);
  if (pid === undefined) return undefined;
  const master = await runningNginxAt(pid);
  if (!master)
    throw new ProxyopsError(
      'LIVE_NGINX_UNREADABLE',
      `cannot read the command line of nginx master ${pid} (${pidFile}) from /proc: cannot see which config it runs; nothing started or stopped`,
    );
  const dump = await dumpRunningConfig(master);
  return {
    pid,
    configFile: master.configFile,
    servers: upstreamServers(dump.config, upstream),
    mainText: [...dump.files.values()][0] ?? '',
    followsTarget: await followsTargetCurrent(master, target),
    ...(adopted === undefined ? {} : { runsAdopted: await sameFile(master.configFile, adopted) }),
  };
}

/** True when both paths name one file once every link is resolved. */
async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([a, b].map((path) => realpath(path).catch(() => path)));
  return x === y;
}

/** The target's current main file, when something was applied there. */
export async function readCurrentMain(target: string): Promise<{ file: string; text: string } | undefined> {
  const file = join(target, 'current', MAIN_CONFIG_FILE);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : { file, text };
}

/** Every address nginx lists for `instances`: each one, and the other address of its blue/green pair. */
function plannedServers(context: DeployContext, instances: readonly InstanceRecord[]): PlannedServer[] {
  const seen = new Set<string>();
  const out: PlannedServer[] = [];
  const add = (server: PlannedServer) => {
    if (seen.has(server.address)) return;
    seen.add(server.address);
    out.push(server);
  };
  for (const instance of instances) add({ address: toAddress(instance) });
  for (const instance of instances) {
    const pair = pairOf(context.pool, instance);
    if (pair) add({ address: toAddress(pair), alternateOf: toAddress(instance) });
  }
  return out;
}

/** What every nginx host answered of its live nginx. */
type LiveHosts = Awaited<ReturnType<Fleet['readLive']>>;

/** The difference between the live nginx and what the plan assumes with `instances` in the upstream. */
async function differenceWith(
  context: DeployContext,
  instances: readonly InstanceRecord[],
  read?: LiveHosts,
): Promise<string | undefined> {
  const { pidFile } = context.spec.paths;
  const planned = {
    upstream: context.upstream,
    servers: plannedServers(context, instances),
    reloads: context.plan.paths.includes('reload'),
    ...(context.adopted ? { adopted: context.adopted.conf } : {}),
  };
  const compare = (
    live: LiveNginxPicture | undefined,
    target: string,
    current?: { file: string; text: string },
  ) =>
    live
      ? compareLiveWithPlan(live, { ...planned, target, current })
      : `no nginx master runs behind ${pidFile} (the spec's paths.pidFile), while the plan moves traffic nginx sends to upstream ${context.upstream}`;
  if (!context.fleet)
    return compare(
      await readLivePicture(pidFile, context.target, context.upstream, context.adopted?.conf),
      context.target,
      await readCurrentMain(context.target),
    );
  // Across hosts each nginx host reads its own and the plan is compared with each.
  const hosts = read ?? (await context.fleet.readLive(pidFile, context.upstream, context.adopted?.conf));
  const found = hosts.flatMap((h) => {
    const difference = compare(h.picture, h.target, h.current);
    return difference === undefined ? [] : [`on ${h.host}: ${difference}`];
  });
  return found.length === 0 ? undefined : found.join('; ');
}

/**
 * Before the first step: the live nginx must run the target's current config, its upstream listing
 * exactly the instances (and alternates) the plan assumes. LIVE_NGINX_DIFFERS (exit 2) otherwise,
 * with both pictures and the fix; nothing has started or stopped.
 */
export async function checkLiveNginx(context: DeployContext): Promise<void> {
  // Behind a hand-written config: the alternate path only, and the adopted lines as the adoption left them.
  if (context.adopted) await checkAdoptedDeploy(context);
  const hosts =
    context.adopted && context.fleet
      ? await checkFleetAdoption(context, context.adopted.conf, context.fleet)
      : undefined;
  const difference = await differenceWith(context, context.instances, hosts);
  if (difference !== undefined)
    throw new ProxyopsError(
      'LIVE_NGINX_DIFFERS',
      `the live nginx is not what this deploy assumes: ${difference}; nothing started or stopped; ${fixFor(context)}`,
    );
}

/**
 * Across nginx hosts behind a hand-written config: each host's own adoption record must list the
 * upstream and its managed lines be as that adoption left them, in that host's tree. One line per
 * host that refuses (ADOPT_DRIFT when any drifted, else ADOPT_REFUSED; exit 2); nothing has started.
 * What the hosts answered, for the look at their masters and upstreams that follows.
 */
async function checkFleetAdoption(context: DeployContext, conf: string, fleet: Fleet): Promise<LiveHosts> {
  const hosts = await fleet.readLive(context.spec.paths.pidFile, context.upstream, conf);
  const refused = hosts.flatMap((h) =>
    h.unadopted !== undefined
      ? [
          `${h.host}: ${unadoptedMessage(context.upstream, conf, h.unadopted, `proxyops config apply --spec ${context.specPath}`, h.marked)}`,
        ]
      : h.drift !== undefined
        ? [`${h.host}: ${h.drift}`]
        : [],
  );
  if (refused.length === 0) return hosts;
  throw new ProxyopsError(
    hosts.some((h) => h.drift !== undefined) ? 'ADOPT_DRIFT' : 'ADOPT_REFUSED',
    `${refused.join('\n')}\nnothing started or stopped on any host`,
    { perLine: true },
  );
}

/** For `deploy plan` (which changes nothing): why the deploy would be refused now, or undefined. */
export async function liveRefusal(context: DeployContext): Promise<string | undefined> {
  try {
    await checkLiveNginx(context);
    return undefined;
  } catch (error) {
    if (!isProxyopsError(error)) throw error;
    return error.message;
  }
}

/** How to bring nginx and the target together, for the refusal. */
function fixFor(context: DeployContext): string {
  if (context.adopted)
    return `run nginx with -c ${context.adopted.conf} (the spec's nginx.conf) and adopt the upstream's alternates first (proxyops config apply --spec ${context.specPath})`;
  if (context.state.stack)
    return `the local stack's nginx no longer runs its own config: restart it (proxyops down, then proxyops up)`;
  if (context.fleet)
    return `apply the spec first (proxyops config apply --spec ${context.specPath}) and run each host's nginx with -c TARGET/current/nginx.conf`;
  return `apply the spec first (proxyops config apply --spec ${context.specPath} --target ${context.target}) and run nginx from it (nginx -c ${join(context.target, 'current', MAIN_CONFIG_FILE)})`;
}

/**
 * A switch followed by the same check: after traffic moved, the live upstream must list what the
 * plan expects next. A difference is an error the round runner puts the round back for. A switch
 * back is looked at too: "rolled back" holds only once nginx lists the old servers again.
 */
export function checkedSwitch(context: DeployContext, traffic: TrafficSwitch): TrafficSwitch {
  const expect = async (step: string, instances: readonly InstanceRecord[]) => {
    const difference = await differenceWith(context, instances);
    if (difference !== undefined)
      throw new ProxyopsError('LIVE_NGINX_DIFFERS', `after the ${step} step, ${difference}`);
  };
  /** Traffic back to `servers`, then the look; its difference is named as the switch back's. */
  const switchBack = async (fresh: InstanceRecord, old: InstanceRecord, servers: InstanceRecord[]) => {
    await traffic.switchBack(fresh, old, servers);
    const difference = await differenceWith(context, servers);
    if (difference !== undefined)
      throw new ProxyopsError(
        'LIVE_NGINX_DIFFERS',
        `ROLLBACK NOT CONFIRMED: after traffic was switched back, ${difference}; check nginx by hand`,
      );
  };
  return {
    ...traffic,
    switchBack,
    async switchIn(fresh, old, current) {
      const switched = await traffic.switchIn(fresh, old, current);
      const next = switched.oldOut
        ? current.map((i) => (i === old ? fresh : i))
        : [...current.filter((i) => i !== fresh), fresh];
      try {
        await expect(traffic.path === 'slot' ? 'swap' : 'add', next);
      } catch (error) {
        // The runner has not counted the new instance in yet: traffic goes back here, it stops it.
        const back: unknown = await switchBack(fresh, old, current).catch((failed: unknown) => failed);
        if (back === undefined) throw error;
        if (isProxyopsError(back) && isProxyopsError(error))
          throw new ProxyopsError(error.code, `${error.message}; ${back.message}`);
        throw back;
      }
      return switched;
    },
    async takeOut(old, rest) {
      const said = await traffic.takeOut(old, rest);
      await expect('remove', rest);
      return said;
    },
  };
}
