import { join } from 'node:path';
import { driftError, findDrift } from '../core/adopt/managed-lines.js';
import { toAdoptionRecord } from '../core/adopt/adoption-record.js';
import { withBlockParams } from '../core/deploy/block-server-params.js';
import { servedAccessLogFiles } from '../core/deploy/live-logs.js';
import { toAddress, type DeployPlan } from '../core/deploy/plan-deploy.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec, UpstreamSpec } from '../core/spec/proxy-spec.js';
import { ADOPTION_FILE, readAdoptionFile } from '../shell/nginx/adoption-file.js';
import { pidFileOfTree, readNginxTree } from '../shell/nginx/read-nginx-tree.js';
import { readRunningConfig, runningNginxOf } from '../shell/nginx/running-nginx.js';
import type { DeployContext } from './deploy-context.js';

/**
 * The spec a deploy behind a hand-written config works from: its pid file the one that config's
 * master writes, its access log the one that config writes where `upstream` is served, and its
 * servers' max_fails/fail_timeout the block's own (read from the running master; the spec's when
 * none runs, which the look before the first step then refuses). The log's format is read from the
 * running config by the watch's own check.
 */
export async function adoptedDeploySpec(spec: ProxySpec, upstream: string): Promise<ProxySpec> {
  const pidFile = pidFileOfTree(spec.nginx!, (await readNginxTree(spec.nginx!.conf)).config);
  const master = await runningNginxOf(pidFile).catch(() => undefined);
  const config = master && (await readRunningConfig(master).catch(() => undefined));
  const paths = { ...spec.paths, pidFile };
  if (!master || !config) return { ...spec, paths };
  const served = servedAccessLogFiles(config, master.prefix, upstream)[0];
  const pool = spec.upstreams[upstream]!;
  return {
    ...spec,
    paths,
    accessLog: { ...spec.accessLog, ...(served === undefined ? {} : { path: served }) },
    upstreams: {
      ...spec.upstreams,
      [upstream]: { ...pool, servers: withBlockParams(pool.servers, config, upstream) },
    },
  };
}

/**
 * Behind a hand-written config every instance takes the alternate path: its server lines are the
 * adoption's, and a deploy never reloads that config. A reload would load, mid-deploy, whatever
 * hand edit waits on disk elsewhere in the tree, and a per-round edit of the block is a config
 * change `config apply` owns (tested, recorded, undoable). The reason an instance is refused, or undefined.
 */
export function adoptedPathRefusal(
  plan: DeployPlan,
  conf: string,
  specPath: string,
  servers: UpstreamSpec['servers'] = [],
): string | undefined {
  const refused = plan.instances.filter((_, i) => plan.paths[i] !== 'alternate');
  if (refused.length === 0) return undefined;
  const first = refused[0]!;
  // The instance may serve at the old alternate of a server whose alternate the spec no longer
  // gives (recorded in instances.json): the fix is the spec's server, named as the spec writes it.
  const at = (a: { host: string; port: number }) => a.host === first.host && a.port === first.port;
  const server =
    servers.find((s) => at(s) || (s.alternate !== undefined && at(s.alternate))) ??
    servers.find((s) => s.host === first.host && s.alternate === undefined);
  const named =
    server === undefined || at(server)
      ? toAddress(first)
      : `the spec's server ${toAddress({ host: server.host, port: server.port })} (${toAddress(first)} serves in its place now)`;
  return `upstream ${plan.upstream} of ${conf}: ${refused.map(toAddress).join(', ')} would take the ${plan.paths[plan.instances.indexOf(first)]} path, which changes the config and reloads nginx; behind an adopted config a deploy moves traffic only between blue/green pairs (no reload), so give ${named} an alternate in ${specPath} and run proxyops config apply --spec ${specPath}; nothing started or stopped`;
}

/**
 * Before the first step behind a hand-written config: every instance on the alternate path, the
 * upstream adopted (its alternates are lines proxyops added and knows), and its managed lines as the
 * adoption left them, in the tree as the one reader reads it now. A hand edit there is drift: the
 * deploy names the changed lines and refuses to guess (ADOPT_DRIFT, exit 2); nothing has started.
 */
export async function checkAdoptedDeploy(context: DeployContext): Promise<void> {
  const { conf } = context.adopted!;
  const refused = adoptedPathRefusal(context.plan, conf, context.specPath, context.pool.servers);
  if (refused) throw new ProxyopsError('ADOPT_REFUSED', refused);
  const source = join(context.target, ADOPTION_FILE);
  const record = toAdoptionRecord(await readAdoptionFile(context.target), source);
  const entry = record?.upstreams[context.upstream];
  if (!record || !entry)
    throw new ProxyopsError(
      'ADOPT_REFUSED',
      `upstream ${context.upstream} of ${conf} is not adopted (${source} does not record it): adopt it first with proxyops config apply --spec ${context.specPath}${context.target === context.spec.nginx?.state ? '' : ` --target ${context.target}`}; nothing started or stopped`,
    );
  const drift = findDrift(await readNginxTree(conf), { upstreams: { [context.upstream]: entry } });
  if (drift.length > 0) throw driftError(drift);
}
