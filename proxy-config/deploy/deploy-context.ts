import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isLogFile } from '../core/apply/version-manifest.js';
import { deployLogKit } from '../core/deploy/deploy-log-kit.js';
import type { BatchSize } from '../core/deploy/plan-batches.js';
import { planDeploy, toAddress, type DeployPlan, type DeployPlanInput } from '../core/deploy/plan-deploy.js';
import { ProxyopsError } from '../core/errors.js';
import { createLogReaderKit, type LogReaderKit } from '../core/logs/log-format-presets.js';
import { chooseWatch, judgeWatchSight, unseenBy, watchRefusal } from '../core/deploy/watch-sight.js';
import { judgeHostsSight } from '../core/deploy/fleet-sight.js';
import { readLiveAccessLog } from './live-access-log.js';
import { parseSpecText } from '../core/spec/parse-spec-text.js';
import type { ProxySpec, UpstreamSpec } from '../core/spec/proxy-spec.js';
import { checkTargetLayout } from '../shell/nginx/config-versions.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import type { Host } from '../shell/host/host.js';
import {
  readStackState,
  SECRET_ENV_NAMES,
  writeStackState,
  type InstanceRecord,
  type StackState,
} from '../shell/stack-state.js';
import { localAccessLogs, type AccessLogs } from './access-logs.js';
import type { Fleet } from './fleet.js';
import { judgeRefusal, type RefusalVerdict } from '../core/deploy/refusal.js';
import { localRefusal, NOTHING_REFUSED, type NginxRefusal } from './refuse-at-proxies.js';
import { adoptedDeploySpec } from './adopted-nginx.js';
import { withLargestParams } from '../core/deploy/block-server-params.js';

/** Everything a deploy works from, read before any step runs. */
export interface DeployContext {
  specPath: string;
  target: string;
  spec: ProxySpec;
  /** The spec as written, to derive the specs of each step from. */
  rawSpec: Record<string, unknown>;
  upstream: string;
  pool: UpstreamSpec & { deploy: NonNullable<UpstreamSpec['deploy']> };
  state: StackState;
  /** The instances in the upstream now, in replacement order. */
  instances: InstanceRecord[];
  accessLog: string;
  kit: LogReaderKit;
  logsDir: string;
  plan: DeployPlan;
  /** `--replace/--with`: the instance to hand over to, which proxyops did not start. */
  handOverTo?: InstanceRecord;
  /** The environment new instances get: the recorded one with this deploy's `--env` changes. */
  instanceEnv: Record<string, string>;
  /** The access logs the watch reads: this machine's, or every nginx host's. */
  logs: AccessLogs;
  /** Records the state: under the target, or on every nginx host. */
  saveState(state: StackState): Promise<void>;
  /** The host an instance runs on, for its hooks: undefined for this machine. */
  hostOf(instance: { host: string }): Host | undefined;
  /** Set when the spec lists nginx hosts: the deploy goes across hosts. */
  fleet?: Fleet;
  /** Refusing nginx's new connections to an old instance of a blue/green pair before it closes its listener. */
  refusal: NginxRefusal;
  /** `--batch`, `--canary` (the first host alone first) and `--max-fail`. */
  batches?: DeployBatches;
  /** Set when the spec names a hand-written config (`nginx.conf`) run on this machine: the target is proxyops' state dir. */
  adopted?: { conf: string };
  /** `deploy plan` only: why the deploy would be refused before its first step (a watch that cannot see). */
  refusedNow?: string;
}

/** How rounds are grouped: `--batch N|P%`, the first host alone first, failed rounds tolerated. */
export interface DeployBatches {
  batch?: BatchSize;
  canary?: boolean;
  /** Rounds that may fail (each put back) before the rest is called off; 0 by default. */
  maxFail?: number;
}

/** Where to deploy: a spec and its config target, and which pool. */
export interface DeployTarget {
  specPath: string;
  target: string;
  upstream?: string;
  /** Settings this deploy changes (`--env NAME=VALUE`): recorded in the state only when it succeeds. */
  envChanges?: Record<string, string>;
  /** The watch's gates, canary, mode and traffic bound, from the flags. */
  watch?: Pick<DeployPlanInput, 'gates' | 'canary' | 'watchMode' | 'minRequests' | 'maxWatch'>;
  /** The local stack's (`--dir`): it must still run once the deploy holds the lock. */
  stack?: boolean;
  /** `--version V`: filled into `{version}` of the command and hooks. */
  version?: string;
  /** `deploy rollback`: the version is the release recorded before the current one. */
  rollback?: boolean;
  /** `--replace OLD --with NEW` (`HOST:PORT` each): hand OLD's traffic over to NEW, which someone else started. */
  handOver?: { replace: string; with: string };
  /** The spec lists nginx hosts: the deploy goes across them (`target` is then a directory here for its hook log). */
  proxies?: boolean;
  /**
   * Those hosts' sessions, set whenever `proxies` is before the context is loaded: locked by the
   * deploy once it holds them, or a look without a lock (`deploy plan`).
   */
  fleet?: Fleet;
  batches?: DeployBatches;
  /** `deploy plan`: a refusal the plan can still be drawn for is kept in `refusedNow`, not thrown. */
  planOnly?: boolean;
}

/** Reads the spec and the recorded instances and computes the plan; nothing runs yet. */
export async function loadDeployContext(where: DeployTarget): Promise<DeployContext> {
  const written = await readSpecFile(where.specPath);
  const upstream = pickUpstream(written, where.upstream);
  // Behind a hand-written config on this machine, its own master's pid file and the log it writes
  // for the upstream; across nginx hosts, each host's tree is read there (the fleet's `hold`).
  const adopted = written.nginx;
  const { fleet } = where;
  const spec = !adopted
    ? written
    : fleet
      ? fleetAdoptedSpec(written, upstream, fleet)
      : await adoptedDeploySpec(written, upstream);
  const rawSpec = parseSpecText(await readFile(where.specPath, 'utf8'), where.specPath) as Record<
    string,
    unknown
  >;
  const pool = spec.upstreams[upstream]!;
  if (!pool.deploy)
    throw new ProxyopsError(
      'SPEC_INVALID',
      `${where.specPath}: upstreams.${upstream} has no deploy section (deploy.command, or the start and stop hooks)`,
    );
  if (!isLogFile(spec.accessLog.path))
    throw new ProxyopsError(
      'SPEC_INVALID',
      `${where.specPath}: accessLog.path is ${spec.accessLog.path}; a deploy watches the access log, so it must be a file`,
    );
  if (fleet) checkFleetSpec(where.specPath, upstream, pool);
  const recordedState = fleet ? await fleet.readState() : await readStackState(where.target);
  // `proxyops down` may have stopped the stack between resolving the target and taking the lock.
  if (where.stack && !recordedState?.stack)
    throw new ProxyopsError('BAD_OPTION', `the local stack of ${where.target} is not running any more`);
  const state = recordedState ?? { version: 1, upstreams: {} };
  const recorded = state.upstreams[upstream]?.filter((i) => i.inUpstream);
  const instances =
    recorded && recorded.length > 0
      ? recorded
      : pool.servers.map((s) => ({
          host: s.host,
          port: s.port,
          ...(s.socket === undefined ? {} : { slot: s.socket }),
          inUpstream: true,
        }));
  const handOver = where.handOver ? pickHandOver(where.handOver, upstream, instances) : undefined;
  const rolled = handOver ? [handOver.old] : instances;
  // A hand-over takes the alternate path only to the old instance's own pair.
  const pairs = rolled.map((instance) => {
    const pair = pairOf(pool, instance);
    if (!handOver || !pair) return pair;
    return pair.host === handOver.fresh.host && pair.port === handOver.fresh.port ? pair : undefined;
  });
  const paired = rolled.flatMap((instance, i) => (pairs[i] ? [instance, pairs[i]] : []));
  // Only a deploy of blue/green pairs that runs holds a refusal; across hosts each one said whether it could.
  const local = fleet || paired.length === 0 ? undefined : await localRefusal(spec.paths.pidFile);
  const refusal = fleet?.refusal ?? local?.refusal ?? NOTHING_REFUSED;
  const verdict: RefusalVerdict | undefined =
    paired.length === 0 ? undefined : judgeRefusal(paired, fleet?.refusalHosts ?? [local!.host]);
  // The watch must see the new instance's requests: in the log the running nginx writes (a deploy
  // across rendered configs judges the spec's; across hand-written trees, every host's own), in a
  // format that names the upstream, soon enough. A gated watch that cannot refuses here, before
  // anything starts.
  const watchInput = {
    spec: {
      format: spec.accessLog.format,
      buffered: spec.accessLog.buffer !== null,
      flushMs: spec.accessLog.flush === null ? null : Math.round(spec.accessLog.flush * 1000),
    },
    watchMs: Math.round(pool.deploy.watch * 1000),
    maxWatchMs: Math.round((where.watch?.maxWatch ?? pool.deploy.maxWatch) * 1000),
    retryMs: Math.max(0, ...pairs.map((pair) => Math.round((pair?.failTimeout ?? 0) * 1000))),
    slots: rolled.some((instance) => instance.slot !== undefined),
    latencyGate: where.watch?.gates?.maxP99Ratio !== null,
    ...(adopted ? { adopted: true } : {}),
  };
  const sight = fleet?.adopted
    ? judgeHostsSight(
        fleet.adopted.map((h) => ({ host: h.host, path: h.accessLog, logs: h.logs })),
        watchInput,
      )
    : judgeWatchSight({
        ...watchInput,
        path: spec.accessLog.path,
        ...(fleet
          ? { notRead: "a deploy across hosts does not read the nginx hosts' configs" }
          : await readLiveAccessLog(spec.paths.pidFile, spec.accessLog.path, upstream)),
      });
  const requested = where.watch?.watchMode ?? pool.deploy.watchMode;
  // `deploy plan` draws the plan of a watch that cannot see and names the refusal after it, as it
  // does a live nginx's; a deploy refuses here (chooseWatch), before anything starts.
  const blind = where.planOnly && !where.rollback ? watchRefusal(sight, requested) : undefined;
  const watch = blind
    ? { mode: requested, unseen: unseenBy(sight, requested) }
    : chooseWatch(sight, requested, where.rollback === true);
  // A buffered access log shows a request only after its flush: log windows grow by that much.
  const logDelayMs = sight.logDelayMs;
  const envChanges = where.envChanges ?? {};
  const version = where.rollback ? releaseBefore(state, upstream) : where.version;
  const planned = planDeploy({
    upstream,
    pool,
    // Each with the idle address of its pair, where the spec declares one: the plan's `alternate` path.
    instances: rolled.map((instance, i) => ({
      host: instance.host,
      port: instance.port,
      ...(instance.slot === undefined ? {} : { slot: instance.slot }),
      // Behind an adopted config every instance is one address of a pair: one the spec no longer names says so.
      ...(pairs[i]
        ? { alternate: pairs[i] }
        : adopted && !inSpec(pool, instance)
          ? { notInSpec: true as const }
          : {}),
    })),
    logDelayMs,
    ...(verdict ? { refusal: verdict } : {}),
    ...(version === undefined ? {} : { version }),
    ...(handOver ? { handOverTo: { host: handOver.fresh.host, port: handOver.fresh.port } } : {}),
    ...where.watch,
    watchMode: watch.mode,
    unseen: watch.unseen,
    // A rollback is the operator's choice of the known-good release: not judging it does not undo it.
    keepNotJudged: where.rollback === true,
    envChanges: Object.entries(envChanges).map(([name, value]) => ({
      name,
      value,
      ...(state.instanceEnv?.[name] === undefined ? {} : { was: state.instanceEnv[name] }),
    })),
    // Never a secret (the database's URL, REDIS_URL, the JWT secret): the plan is printed and pasted.
    envKept: Object.entries(state.instanceEnv ?? {})
      .filter(([name]) => !SECRET_ENV_NAMES.has(name) && envChanges[name] === undefined)
      .map(([name, value]) => ({ name, value })),
  });
  const plan = adopted ? { ...planned, adopted: adopted.conf } : planned;
  return {
    specPath: where.specPath,
    target: where.target,
    spec,
    rawSpec,
    upstream,
    pool: { ...pool, deploy: pool.deploy },
    state,
    instances,
    accessLog: spec.accessLog.path,
    kit:
      'preset' in sight.reader ? deployLogKit(sight.reader.preset) : createLogReaderKit(sight.reader.format),
    logsDir: state.stack?.logsDir ?? join(where.target, 'logs'),
    plan,
    ...(handOver ? { handOverTo: handOver.fresh } : {}),
    instanceEnv: { ...state.instanceEnv, ...envChanges },
    logs: fleet ? fleet.logs : localAccessLogs(spec.accessLog.path),
    saveState: (next) => (fleet ? fleet.writeState(next) : writeStackState(where.target, next)),
    hostOf(instance) {
      const ssh = pool.servers.find(
        (s) => s.host === instance.host || s.alternate?.host === instance.host,
      )?.ssh;
      return fleet && ssh ? fleet.appHost(ssh) : undefined;
    },
    ...(fleet ? { fleet } : {}),
    refusal,
    ...(where.batches ? { batches: checkBatches(where.batches, plan) } : {}),
    ...(adopted ? { adopted: { conf: adopted.conf } } : {}),
    ...(blind ? { refusedNow: blind.message } : {}),
  };
}

/**
 * Across nginx hosts behind a hand-written config, the spec as the first host's tree names it:
 * its pid file and the log its nginx writes for the upstream (each host reads its own log, and its
 * own pid file, in its session), and each server's max_fails/fail_timeout the largest the hosts'
 * blocks write. How each host writes its log is judged host by host (judgeHostsSight).
 */
function fleetAdoptedSpec(spec: ProxySpec, upstream: string, fleet: Fleet): ProxySpec {
  const first = fleet.adopted?.[0];
  const pidFile = first?.pidFile ?? spec.nginx?.pidFile ?? spec.paths.pidFile;
  if (!first) return { ...spec, paths: { ...spec.paths, pidFile } };
  const pool = spec.upstreams[upstream]!;
  const servers = withLargestParams(
    pool.servers,
    fleet.adopted!.map((host) => host.servers),
  );
  return {
    ...spec,
    paths: { ...spec.paths, pidFile },
    accessLog: { ...spec.accessLog, path: first.accessLog },
    upstreams: { ...spec.upstreams, [upstream]: { ...pool, servers } },
  };
}

/** Rounds run together only where no round changes nginx's config (the reload path does, per round). */
function checkBatches(batches: DeployBatches, plan: DeployPlan): DeployBatches {
  if (
    batches.batch &&
    !('count' in batches.batch && batches.batch.count === 1) &&
    plan.paths.includes('reload')
  )
    throw new ProxyopsError(
      'BAD_OPTION',
      '--batch runs rounds together, but the reload path changes the config of nginx for each round: declare an alternate address for each server (the alternate path) or deploy one at a time',
    );
  return batches;
}

/** The release `deploy rollback` goes back to; BAD_OPTION when none was recorded. */
function releaseBefore(state: StackState, upstream: string): string {
  const release = state.releases?.[upstream];
  if (!release?.previous)
    throw new ProxyopsError(
      'BAD_OPTION',
      `no release of upstream ${upstream} was recorded before ${release ? release.current : 'this one'}: deploy rollback goes back to the release a deploy --version replaced; deploy the one you want with --version V`,
    );
  return release.previous;
}

/** What a deploy across hosts needs of the spec: hooks (proxyops starts no child on another host). */
function checkFleetSpec(specPath: string, upstream: string, pool: UpstreamSpec): void {
  const remote = pool.servers.filter((s) => s.ssh);
  if (remote.length > 0 && !pool.deploy?.start)
    throw new ProxyopsError(
      'SPEC_INVALID',
      `${specPath}: upstreams.${upstream} has servers on other hosts (ssh: ${remote[0]!.ssh}) but no start hook; deploy.command runs on this machine, so give deploy.start and deploy.stop hooks, which run on each server's host`,
    );
}

/**
 * The other address of the blue/green pair `instance` is in (its server's `alternate`, or the server
 * whose alternate it is), with the pair's fail_timeout; undefined when the spec declares no pair.
 */
export function pairOf(
  pool: UpstreamSpec,
  instance: { host: string; port: number; slot?: string | undefined },
): { host: string; port: number; failTimeout: number; maxFails: number } | undefined {
  if (instance.slot !== undefined) return undefined;
  const same = (a: { host: string; port: number }) => a.host === instance.host && a.port === instance.port;
  for (const server of pool.servers) {
    if (!server.alternate || server.socket !== undefined) continue;
    const { failTimeout, maxFails } = server;
    if (same(server)) return { ...server.alternate, failTimeout, maxFails };
    if (same(server.alternate)) return { host: server.host, port: server.port, failTimeout, maxFails };
  }
  return undefined;
}

/** Whether the spec names an instance's address, as a server or as an alternate (a slot: as a server's socket). */
function inSpec(
  pool: UpstreamSpec,
  instance: { host: string; port: number; slot?: string | undefined },
): boolean {
  const same = (a: { host: string; port: number }) => a.host === instance.host && a.port === instance.port;
  return pool.servers.some((s) =>
    instance.slot !== undefined
      ? s.socket === instance.slot
      : same(s) || (s.alternate !== undefined && same(s.alternate)),
  );
}

/** `HOST:PORT` (or `[IPv6]:PORT`) as an address; BAD_OPTION naming the flag otherwise. */
function parseAddress(flag: string, text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(':');
  const host = text.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(text.slice(colon + 1));
  if (colon <= 0 || host === '' || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new ProxyopsError(
      'BAD_OPTION',
      `${flag} ${JSON.stringify(text)} must be HOST:PORT, such as 127.0.0.1:3001`,
    );
  return { host, port };
}

/** The instance `--replace` names (one of the upstream's now) and the record of `--with`'s. */
function pickHandOver(
  flags: { replace: string; with: string },
  upstream: string,
  instances: InstanceRecord[],
): { old: InstanceRecord; fresh: InstanceRecord } {
  const replace = parseAddress('--replace', flags.replace);
  const given = parseAddress('--with', flags.with);
  const same = (a: { host: string; port: number }, b: { host: string; port: number }) =>
    a.host === b.host && a.port === b.port;
  const old = instances.find((i) => i.slot === undefined && same(i, replace));
  if (!old)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--replace ${flags.replace}: not an instance of upstream ${upstream} (its instances: ${instances.map((i) => toAddress(i)).join(', ')})`,
    );
  if (instances.some((i) => i.slot === undefined && same(i, given)))
    throw new ProxyopsError(
      'BAD_OPTION',
      `--with ${flags.with} already is an instance of upstream ${upstream}`,
    );
  return { old, fresh: { ...given, inUpstream: false } };
}

/** The upstream a deploy rolls: the one named, else the only one with a deploy section. */
export function pickUpstream(spec: ProxySpec, wanted: string | undefined): string {
  if (wanted !== undefined) {
    if (!spec.upstreams[wanted])
      throw new ProxyopsError(
        'BAD_OPTION',
        `--upstream ${wanted}: no such upstream (known: ${Object.keys(spec.upstreams).join(', ')})`,
      );
    return wanted;
  }
  const deployable = Object.keys(spec.upstreams).filter((name) => spec.upstreams[name]!.deploy);
  if (deployable.length === 1) return deployable[0]!;
  throw new ProxyopsError(
    deployable.length === 0 ? 'SPEC_INVALID' : 'BAD_OPTION',
    deployable.length === 0
      ? 'no upstream has a deploy section (upstreams.NAME.deploy.command)'
      : `several upstreams have a deploy section (${deployable.join(', ')}): pick one with --upstream`,
  );
}

/**
 * Writes the spec of one step: the spec as written with the pool's servers replaced by `servers`
 * (each keeping the first written server's maxFails/failTimeout/weight). Returns its path.
 */
export async function writeStepSpec(context: DeployContext, servers: InstanceRecord[]): Promise<string> {
  const upstreams = context.rawSpec.upstreams as Record<string, Record<string, unknown>>;
  const pool = upstreams[context.upstream]!;
  const [first] = (pool.servers as Array<Record<string, unknown>> | undefined) ?? [];
  const template = { ...first };
  delete template.host;
  delete template.port;
  delete template.socket;
  delete template.alternate;
  // A member of a declared pair keeps its server entry as written: nginx lists the pair whole.
  const written = (pool.servers as Array<Record<string, unknown>> | undefined) ?? [];
  const declared = (s: InstanceRecord) =>
    pairOf(context.pool, s)
      ? written[
          context.pool.servers.findIndex(
            (server) =>
              (server.host === s.host && server.port === s.port) ||
              (server.alternate?.host === s.host && server.alternate.port === s.port),
          )
        ]
      : undefined;
  const derived = {
    ...context.rawSpec,
    upstreams: {
      ...upstreams,
      [context.upstream]: {
        ...pool,
        servers: servers.map(
          (s) =>
            declared(s) ??
            (s.slot === undefined
              ? { ...template, host: s.host, port: s.port }
              : { ...template, socket: s.slot }),
        ),
      },
    },
  };
  await mkdir(context.target, { recursive: true, mode: 0o755 });
  const path = join(context.target, 'deploy-spec.json');
  await writeFile(path, `${JSON.stringify(derived, null, 2)}\n`);
  return path;
}

/** Default directory of the local stack (`proxyops up`), relative to the working directory. */
export const DEFAULT_STACK_DIR = '.proxyops';

/** The config target of the local stack in `dir`. */
export function stackTarget(dir: string): string {
  return join(dir, 'config');
}

/**
 * Where a deploy goes: `--spec` with `--target`, or, with neither, the local stack running in `dir`
 * (its spec and config target, as `proxyops up` recorded them).
 */
export async function resolveDeployTarget(flags: {
  spec?: string;
  target?: string;
  dir?: string;
  upstream?: string;
  envChanges?: Record<string, string>;
  watch?: DeployTarget['watch'];
  version?: string;
  handOver?: DeployTarget['handOver'];
  batches?: DeployBatches;
  rollback?: boolean;
}): Promise<DeployTarget> {
  const upstream = {
    ...(flags.handOver === undefined ? {} : { handOver: flags.handOver }),
    ...(flags.upstream === undefined ? {} : { upstream: flags.upstream }),
    ...(flags.version === undefined ? {} : { version: flags.version }),
    ...(flags.envChanges === undefined ? {} : { envChanges: flags.envChanges }),
    ...(flags.watch === undefined ? {} : { watch: flags.watch }),
    ...(flags.batches === undefined ? {} : { batches: flags.batches }),
    ...(flags.rollback ? { rollback: true } : {}),
  };
  if (flags.spec !== undefined) {
    const spec = await readSpecFile(flags.spec);
    // With nginx hosts in the spec, no target here: the deploy goes to them (its hook log stays here).
    if (flags.target === undefined && spec.proxies.length > 0)
      return {
        specPath: flags.spec,
        target: join(flags.dir ?? DEFAULT_STACK_DIR, 'hosts'),
        proxies: true,
        ...upstream,
      };
    // A hand-written config has no config target: the state dir holds instances, locks and logs.
    if (spec.nginx && spec.proxies.length === 0)
      return { specPath: flags.spec, target: flags.target ?? spec.nginx.state, ...upstream };
    if (flags.target === undefined)
      throw new ProxyopsError(
        'BAD_OPTION',
        '--spec needs --target DIR (the config target of `proxyops config apply`)',
      );
    await checkTargetLayout(flags.target);
    return { specPath: flags.spec, target: flags.target, ...upstream };
  }
  if (flags.target !== undefined) throw new ProxyopsError('BAD_OPTION', '--target needs --spec FILE');
  const dir = flags.dir ?? DEFAULT_STACK_DIR;
  await checkTargetLayout(stackTarget(dir));
  const state = await readStackState(stackTarget(dir));
  // A hand-over names instances of a spec's upstream; without a spec only a local stack has them.
  if (!state?.stack && flags.handOver !== undefined)
    throw new ProxyopsError(
      'BAD_OPTION',
      '--replace needs --spec FILE with --target DIR and --upstream NAME: the spec names the upstream whose instance it hands over',
    );
  if (!state?.stack)
    throw new ProxyopsError(
      'BAD_OPTION',
      `no local stack in ${dir} (start one with \`proxyops up --dir ${dir}\`) and no --spec given`,
    );
  return { specPath: state.stack.specPath, target: stackTarget(dir), stack: true, ...upstream };
}
