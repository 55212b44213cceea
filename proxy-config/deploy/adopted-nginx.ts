import { dirname, join } from 'node:path';
import { driftError, findDrift, type UpstreamDrift } from '../core/adopt/managed-lines.js';
import { toAdoptionRecord } from '../core/adopt/adoption-record.js';
import { ALTERNATE_MARK, alternateLinesOf } from '../core/adopt/alternate-marks.js';
import { withBlockParams } from '../core/deploy/block-server-params.js';
import { servedAccessLogFiles } from '../core/deploy/live-logs.js';
import { toAddress, type DeployPlan } from '../core/deploy/plan-deploy.js';
import { ProxyopsError } from '../core/errors.js';
import type { NginxConfig } from '../core/nginx-config/types.js';
import type { ProxySpec, UpstreamSpec } from '../core/spec/proxy-spec.js';
import { ADOPTION_FILE, readAdoptionFile } from '../shell/nginx/adoption-file.js';
import { withLoadCommand } from '../shell/nginx/drift-load-command.js';
import { pidFileOfTree, readNginxTree } from '../shell/nginx/read-nginx-tree.js';
import { readRunningConfig, runningNginxOf } from '../shell/nginx/running-nginx.js';
import type { DeployContext } from './deploy-context.js';

/**
 * What a hand-written config says a deploy of `upstream` works with, on the host it runs on: the
 * pid file its master writes, that master and the config it runs (undefined when none runs or it
 * cannot be read) and the access log it writes where `upstream` is served (undefined when none).
 */
export async function readAdoptedNginx(
  nginx: { conf: string; pidFile?: string },
  upstream: string,
): Promise<{
  pidFile: string;
  running?: { config: NginxConfig; prefix: string };
  accessLog?: string;
}> {
  const pidFile = pidFileOfTree(nginx, (await readNginxTree(nginx.conf)).config);
  const master = await runningNginxOf(pidFile).catch(() => undefined);
  const config = master && (await readRunningConfig(master).catch(() => undefined));
  if (!master || !config) return { pidFile };
  const accessLog = servedAccessLogFiles(config, master.prefix, upstream)[0];
  return {
    pidFile,
    running: { config, prefix: master.prefix },
    ...(accessLog === undefined ? {} : { accessLog }),
  };
}

/**
 * The spec a deploy behind a hand-written config works from: its pid file the one that config's
 * master writes, its access log the one that config writes where `upstream` is served, and its
 * servers' max_fails/fail_timeout the block's own (read from the running master; the spec's when
 * none runs, which the look before the first step then refuses). The log's format is read from the
 * running config by the watch's own check.
 */
export async function adoptedDeploySpec(spec: ProxySpec, upstream: string): Promise<ProxySpec> {
  const { pidFile, running, accessLog } = await readAdoptedNginx(spec.nginx!, upstream);
  const paths = { ...spec.paths, pidFile };
  if (!running) return { ...spec, paths };
  const pool = spec.upstreams[upstream]!;
  return {
    ...spec,
    paths,
    accessLog: { ...spec.accessLog, ...(accessLog === undefined ? {} : { path: accessLog }) },
    upstreams: {
      ...spec.upstreams,
      [upstream]: { ...pool, servers: withBlockParams(pool.servers, running.config, upstream) },
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
  if (server === undefined && first.notInSpec)
    return `upstream ${plan.upstream} of ${conf}: an instance serves at ${toAddress(first)}, which ${specPath} names neither as a server nor as an alternate (it was started under a spec that paired it): deploy with the spec the block was adopted with to move it back to its pair, then run proxyops config apply --spec ${specPath}; nothing started or stopped`;
  const named =
    server === undefined || at(server)
      ? toAddress(first)
      : `the spec's server ${toAddress({ host: server.host, port: server.port })} (${toAddress(first)} serves in its place now)`;
  return `upstream ${plan.upstream} of ${conf}: ${refused.map(toAddress).join(', ')} would take the ${plan.paths[plan.instances.indexOf(first)]} path, which changes the config and reloads nginx; behind an adopted config a deploy moves traffic only between blue/green pairs (no reload), so give ${named} an alternate in ${specPath} and run proxyops config apply --spec ${specPath}; nothing started or stopped`;
}

/**
 * How the adoption of `upstream` stands in the state dir `target`, against the tree as the one
 * reader reads it now: not recorded there (`unadopted`, the record's path; `marked`, the lines of
 * the tree that carry proxyops' mark when there is no record at all), or its managed lines edited
 * by hand since (`drift`, the lines changed), or neither (as the adoption left them).
 */
export async function readAdoptionStanding(
  target: string,
  conf: string,
  upstream: string,
): Promise<{ unadopted?: string; marked?: string[]; drift?: UpstreamDrift[] }> {
  const source = join(target, ADOPTION_FILE);
  const record = toAdoptionRecord(await readAdoptionFile(target), source);
  const entry = record?.upstreams[upstream];
  if (!record) {
    const marked = alternateLinesOf(await readNginxTree(conf));
    return { unadopted: source, ...(marked.length > 0 ? { marked } : {}) };
  }
  if (!entry) return { unadopted: source };
  const drift = findDrift(await readNginxTree(conf), { upstreams: { [upstream]: entry } });
  return drift.length > 0 ? { drift } : {};
}

/**
 * The refusal when `upstream` is not adopted: the record at `source` does not list it. When the tree
 * carries proxyops' marks (`marked`) the record is elsewhere and `config apply` would refuse too
 * (adopt-nginx.ts): the fix named is the state directory, not an adoption.
 */
export function unadoptedMessage(
  upstream: string,
  conf: string,
  source: string,
  adopt: string,
  marked: readonly string[] = [],
): string {
  if (marked.length > 0)
    return `upstream ${upstream} of ${conf}: ${source} does not exist, but ${marked.join(', ')} ${marked.length === 1 ? 'is a line' : 'are lines'} proxyops added ("${ALTERNATE_MARK}"): ${dirname(source)} is likely not the state directory of that adoption (check --target, nginx.state, or the host's target under proxies)`;
  return `upstream ${upstream} of ${conf} is not adopted (${source} does not record it): adopt it first with ${adopt}`;
}

/**
 * Before the first step behind a hand-written config: every instance on the alternate path, the
 * upstream adopted (its alternates are lines proxyops added and knows), and its managed lines as the
 * adoption left them, in the tree as the one reader reads it now. A hand edit there is drift: the
 * deploy names the changed lines and refuses to guess (ADOPT_DRIFT, exit 2); nothing has started.
 * Across nginx hosts each host judges its own tree and record (its `live` answer, see live-nginx-check.ts).
 */
export async function checkAdoptedDeploy(context: DeployContext): Promise<void> {
  const { conf } = context.adopted!;
  const refused = adoptedPathRefusal(context.plan, conf, context.specPath, context.pool.servers);
  if (refused) throw new ProxyopsError('ADOPT_REFUSED', refused);
  if (context.fleet) return;
  const standing = await readAdoptionStanding(context.target, conf, context.upstream);
  if (standing.unadopted !== undefined)
    throw new ProxyopsError(
      'ADOPT_REFUSED',
      `${unadoptedMessage(
        context.upstream,
        conf,
        standing.unadopted,
        `proxyops config apply --spec ${context.specPath}${context.target === context.spec.nginx?.state ? '' : ` --target ${context.target}`}`,
        standing.marked,
      )}; nothing started or stopped`,
    );
  if (standing.drift) throw await withLoadCommand(driftError(standing.drift), context.spec.paths.pidFile);
}
