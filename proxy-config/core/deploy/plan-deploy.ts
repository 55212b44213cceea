import type { RefusalVerdict } from './refusal.js';
import { ProxyopsError } from '../errors.js';
import { fillHook, formatArgv, needsVersion } from './instance-command.js';
import type { DeploySpec, DrainMode, UpstreamSpec } from '../spec/proxy-spec.js';
import { formatWait, planDrainTiming, type DrainTiming } from './drain-timing.js';
import { DEFAULT_GATES, type GateLimits } from './watch-gates.js';
import { READINESS_ONLY, type WatchMode } from './watch-sight.js';

/** Where an instance listens: host:port, or behind an upstream slot (a unix socket path nginx connects to). */
export interface InstanceAddress {
  host: string;
  port: number;
  slot?: string;
  /**
   * The other address of its blue/green pair (the spec's `alternate`), idle now: both are in the
   * rendered upstream, so a new instance there gets traffic without a reload.
   */
  alternate?: { host: string; port: number; failTimeout: number; maxFails?: number };
  /**
   * Set when the spec names this address neither as a server nor as an alternate: the instance was
   * started under a spec that paired it, which has changed since.
   */
  notInSpec?: true;
}

/**
 * How a round replaces an instance: a rename over its slot, a new instance on the idle address of a
 * pair that nginx already lists (`alternate`; neither reloads nginx), or a config change and reload.
 */
export type ReplacePath = 'slot' | 'alternate' | 'reload';

/** The kinds of step a deploy round is made of, in the order they may appear. */
export type DeployStepKind =
  | 'start'
  | 'wait-ready'
  | 'swap'
  | 'add'
  | 'watch'
  | 'signal'
  | 'drain-detect'
  | 'remove'
  | 'confirm-idle'
  | 'wait-exit';

/** One step of the plan. `waitMs` is a fixed wait (counted down); `boundMs` caps a wait-until. */
export interface DeployStep {
  /** 1-based position in the whole plan. */
  index: number;
  /** Which old instance this round replaces (1-based). */
  round: number;
  kind: DeployStepKind;
  title: string;
  old: InstanceAddress;
  waitMs?: number;
  boundMs?: number;
}

/** A rolling deploy as data: computed before anything happens, printed, then walked by the runner. */
export interface DeployPlan {
  upstream: string;
  /** How reload-path instances leave; absent when every instance takes another path. */
  drainMode?: DrainMode;
  /** The signal for proxyops' own children (deploy.command); absent with the start/stop hooks. */
  stopSignal?: DeploySpec['stopSignal'];
  /** How instances start and stop: proxyops's own child (`command`) or the spec's lifecycle hooks. */
  launch: DeployLaunch;
  /** `deploy --version`, filled into `{version}`. */
  version?: string;
  /** Readiness of a new instance: GET this path (the hook's or healthCheck's) unless `launch.ready` is an argv. */
  readinessPath: string;
  drain: DrainTiming;
  /** Extra time the access log needs to show a request (its buffer flush), added to log windows. */
  logDelayMs: number;
  /** Every gate of the watch (5xx from the spec, 4xx and latency from flags or their defaults). */
  gates: GateLimits;
  /** The first round's watch when longer than the others (`--canary`). */
  canaryMs: number;
  /** How the watch judges a new instance, and what it cannot see. */
  watch: PlanWatch;
  instances: InstanceAddress[];
  /** Which path each instance takes, in the order of `instances`. */
  paths: ReplacePath[];
  /** The hand-written main file (a spec's `nginx.conf`) whose adopted upstream this deploys: the alternate path only. */
  adopted?: string;
  /** Settings the new instances get changed (`deploy --env`), with the recorded value they replace. */
  envChanges: EnvChange[];
  /** The stack's recorded settings the new instances get as they are (`up --api-env`, an earlier `deploy --env`). */
  envKept: Array<Omit<EnvChange, 'was'>>;
  steps: DeployStep[];
  /** Sum of the fixed waits, and of fixed waits plus every bound: the deploy takes between the two. */
  minMs: number;
  maxMs: number;
}

/** How the watch judges: its mode, the requests it needs, how long it waits for them, what it cannot see. */
export interface PlanWatch {
  mode: WatchMode;
  /** The new instance must answer this many requests before it is called good. */
  minRequests: number;
  /** A watch with fewer is extended up to this long (from its start), then rolls the round back: not judged. */
  maxWatchMs: number;
  /** Named on the plan and on every verdict. */
  unseen: string[];
  /**
   * `deploy rollback`: a round the watch could not judge is kept (the operator's explicit choice of
   * the known-good release), not undone; a gate that fires still undoes it.
   */
  keepNotJudged: boolean;
}

/** The argvs that start, stop and check instances, as the spec gives them (placeholders unfilled). */
export type DeployLaunch =
  | { kind: 'command'; command: string[] }
  | { kind: 'hooks'; start?: string[]; stop?: string[]; ready?: string[] };

/** One setting a deploy changes. */
export interface EnvChange {
  name: string;
  value: string;
  was?: string;
}

/** What a plan is computed from. */
export interface DeployPlanInput {
  upstream: string;
  pool: Pick<UpstreamSpec, 'healthCheck' | 'deploy'>;
  instances: InstanceAddress[];
  logDelayMs: number;
  /**
   * On the alternate path, whether every nginx host refuses nginx's new connections to the old
   * instance before it is told to stop (else why not, and the plan says what that costs).
   */
  refusal?: RefusalVerdict;
  /** `deploy --version`: required when a hook names `{version}`. */
  version?: string;
  envChanges?: EnvChange[];
  envKept?: Array<Omit<EnvChange, 'was'>>;
  /** Gates the flags set; the others take DEFAULT_GATES. */
  gates?: Partial<Omit<GateLimits, 'max5xxIncrease' | 'max5xxShare'>>;
  /** Seconds the first new instance is watched (a canary), when longer than deploy.watch. */
  canary?: number;
  /** `--watch`, `--min-requests`, `--max-watch` (seconds); the spec's deploy settings otherwise. */
  watchMode?: WatchMode;
  minRequests?: number;
  maxWatch?: number;
  /** What the watch cannot see (judgeWatchSight), named on the plan and on every verdict. */
  unseen?: string[];
  /** `deploy rollback`: keep a round the watch could not judge (PlanWatch.keepNotJudged). */
  keepNotJudged?: boolean;
  /**
   * `--replace OLD --with NEW`: the one instance of `instances` is handed over to NEW, an instance
   * someone else started (no start step). NEW is the old one's `alternate` when the spec pairs them.
   */
  handOverTo?: { host: string; port: number };
}

/** Longest wait, once nginx's new connections to an old instance are refused, for its accept queue to empty. */
export const ACCEPT_QUEUE_BOUND_MS = 5_000;

/** After the reload that removes an instance, how long the access log is read for requests still reaching it. */
export const CONFIRM_IDLE_MS = 500;
/** Slack on top of the drain wait and stop timeout before an old instance is killed. */
export const EXIT_SLACK_MS = 1_000;

/** Formats `host:port`, or `unix:PATH` for a slot (as nginx logs it in $upstream_addr). */
export function toAddress(instance: InstanceAddress): string {
  return instance.slot === undefined ? `${instance.host}:${instance.port}` : `unix:${instance.slot}`;
}

/**
 * Slots are replaced by a rename; an instance with an idle alternate address by a new one there, when
 * something can make the old one leave (proxyops's own child, or a stop hook); others need a reload.
 */
export function toReplacePath(instance: InstanceAddress, launch: DeployLaunch): ReplacePath {
  if (instance.slot !== undefined) return 'slot';
  const canStopOld = launch.kind === 'command' || launch.stop !== undefined;
  return instance.alternate !== undefined && canStopOld ? 'alternate' : 'reload';
}

/** The launch of a deploy section: its command, or its hooks. */
export function toLaunch(deploy: DeploySpec): DeployLaunch {
  if (deploy.command) return { kind: 'command', command: deploy.command };
  return {
    kind: 'hooks',
    ...(deploy.start ? { start: deploy.start } : {}),
    ...(deploy.stop ? { stop: deploy.stop } : {}),
    ...(Array.isArray(deploy.ready) ? { ready: deploy.ready } : {}),
  };
}

/** Computes the steps of a rolling deploy of `instances`, one at a time, with every wait. */
export function planDeploy(input: DeployPlanInput): DeployPlan {
  const { deploy, healthCheck } = input.pool;
  if (!deploy)
    throw new ProxyopsError(
      'SPEC_INVALID',
      `upstreams.${input.upstream} has no deploy section (deploy.command starts a new instance)`,
    );
  if (input.instances.length === 0)
    throw new ProxyopsError('SPEC_INVALID', `upstreams.${input.upstream} has no instances to replace`);
  if (input.version === undefined && needsVersion(deploy))
    throw new ProxyopsError(
      'BAD_OPTION',
      `upstreams.${input.upstream}.deploy names {version}: give the version to deploy with --version V`,
    );
  const launch = toLaunch(deploy);
  const readinessPath = typeof deploy.ready === 'string' ? deploy.ready : healthCheck.readinessPath;
  const version = input.version;
  const argvAt = (argv: string[], at: { host: string; port: number | string; socket?: string }) =>
    formatArgv(fillHook(argv, { host: at.host, port: at.port as number, socket: at.socket, version }));
  const readiness = (at: string) =>
    launch.kind === 'hooks' && launch.ready
      ? `run the ready hook until it exits 0: ${launch.ready.join(' ')}`
      : `GET ${readinessPath} on the new instance${at} answers 200`;
  const drain = planDrainTiming(healthCheck);
  const s = (ms: number) => formatWait(ms);
  const roundWatchMs = Math.round(deploy.watch * 1000);
  const readyMs = Math.round(deploy.readyTimeout * 1000);
  const exitBoundMs = drain.waitMs + Math.round(deploy.stopTimeout * 1000) + EXIT_SLACK_MS;
  // Behind a slot there is no drain wait: the old process leaves as soon as nginx let go of it.
  const slotExitBoundMs = Math.round(deploy.stopTimeout * 1000) + EXIT_SLACK_MS;
  const signal = deploy.stopSignal;
  const gates: GateLimits = {
    max5xxIncrease: deploy.max5xxIncrease,
    // A rollback goes back to the known-good release, which an outage of a dependency makes fail as
    // much as the one it replaces: only a rise over that release undoes it, not the floor.
    max5xxShare: input.keepNotJudged ? null : deploy.max5xxShare,
    max4xxIncrease:
      input.gates?.max4xxIncrease === undefined ? DEFAULT_GATES.max4xxIncrease : input.gates.max4xxIncrease,
    maxP99Ratio: input.gates?.maxP99Ratio === undefined ? DEFAULT_GATES.maxP99Ratio : input.gates.maxP99Ratio,
  };
  const canaryMs = Math.round((input.canary ?? 0) * 1000);
  const watch: PlanWatch = {
    mode: input.watchMode ?? deploy.watchMode,
    minRequests: input.minRequests ?? deploy.minRequests,
    maxWatchMs: Math.round((input.maxWatch ?? deploy.maxWatch) * 1000),
    unseen: input.unseen ?? [],
    keepNotJudged: input.keepNotJudged ?? false,
  };
  const readinessOnly = watch.mode === 'readiness-only';
  /** A gated watch with too few requests goes on up to maxWatch: the bound of its wait-until. */
  const extension = (watchedMs: number) =>
    !readinessOnly && watch.maxWatchMs > watchedMs ? { boundMs: watch.maxWatchMs - watchedMs } : {};
  const tooFew = readinessOnly
    ? ''
    : `; at least ${watch.minRequests} of its requests, waiting up to ${s(watch.maxWatchMs)} for them, else ${watch.keepNotJudged ? 'kept (a rollback): not judged' : 'stop: could not judge'}`;
  const rise = (limit: number | null, what: string) =>
    limit === null ? `${what}: report only` : `${what} +${(limit * 100).toFixed(1)} points`;
  const floor = gates.max5xxShare === null ? '' : ` or above ${(gates.max5xxShare * 100).toFixed(1)}%`;
  const threshold = readinessOnly
    ? `${READINESS_ONLY}: status codes and request times are not judged`
    : `roll back above: ${rise(gates.max5xxIncrease, '5xx')}${floor}, ${rise(gates.max4xxIncrease, '4xx')}, latency ${gates.maxP99Ratio === null ? 'report only' : `${gates.maxP99Ratio}x (median, Mann-Whitney U)`}${tooFew}`;

  const steps: DeployStep[] = [];
  input.instances.forEach((old, i) => {
    const at = toAddress(old);
    const watchMs = i === 0 ? Math.max(roundWatchMs, canaryMs) : roundWatchMs;
    const canaryNote =
      i === 0 && canaryMs > roundWatchMs ? ' (canary: the first new instance is watched longer)' : '';
    const add = (kind: DeployStepKind, title: string, wait: { waitMs?: number; boundMs?: number } = {}) =>
      steps.push({ index: steps.length + 1, round: i + 1, kind, title, old, ...wait });
    const path = toReplacePath(old, launch);
    const given = input.handOverTo;
    // Where the new instance goes: the idle address of the pair, a fresh socket beside the slot, or a free port.
    const next: { host: string; port: number | string; socket?: string } = given
      ? given
      : path === 'alternate'
        ? { host: old.alternate!.host, port: old.alternate!.port }
        : path === 'slot'
          ? { host: old.host, port: old.port, socket: `${old.slot!.replace(/\.sock$/, '')}.XXXXXXXX.sock` }
          : { host: old.host, port: '{port}' };
    const nextAt =
      path === 'reload' && !given
        ? `${old.host}:{port} (a free port)`
        : toAddress({ host: next.host, port: Number(next.port) });
    if (!given)
      add(
        'start',
        launch.kind === 'command'
          ? `start a new instance to replace ${at}: ${argvAt(launch.command, next)}`
          : `run the start hook for a new instance at ${next.socket ?? nextAt}: ${argvAt(launch.start ?? [], next)}`,
      );
    add(
      'wait-ready',
      given
        ? `check that ${nextAt}, started by you, is ready: ${readiness('')} (at most ${s(readyMs)}; else change nothing)`
        : `wait until ${readiness(path === 'alternate' ? ` (${nextAt}; nginx sends it requests once it accepts connections)` : '')} (at most ${s(readyMs)}; else stop it, change nothing)`,
      { boundMs: readyMs },
    );
    const stopOld =
      launch.kind === 'hooks'
        ? launch.stop
          ? `run the stop hook for ${at}: ${argvAt(launch.stop, old)}`
          : `leave ${at} running: no stop hook (it is idle and may be stopped)`
        : undefined;
    if (path === 'alternate') {
      add(
        'add',
        `count the new instance in: nginx lists ${nextAt} beside ${at} and passes a refused connection to the next server (no reload)`,
      );
      // A worker that found the idle address refusing (max_fails) tries it again only after fail_timeout.
      const retryMs = Math.round(old.alternate!.failTimeout * 1000);
      add(
        'watch',
        `watch the new instance (exit, readiness, 502s naming it)${readinessOnly ? ` (${threshold})` : ` and its status codes and median request time (${threshold})`}${canaryNote}, at least fail_timeout (${s(retryMs)}, after which every nginx worker tries ${nextAt} again); on failure stop it, ${at} serves on`,
        { waitMs: Math.max(watchMs, retryMs) + input.logDelayMs, ...extension(Math.max(watchMs, retryMs)) },
      );
      // A connection still queued at the old listener when it closes is reset after nginx wrote its
      // request, and a POST is then not passed on: refused first, nothing new reaches the queue.
      if (input.refusal?.ok)
        add(
          'remove',
          `refuse nginx's new connections to ${at} on every nginx host (an nft rule matching nginx's workers; no reload): they go to ${nextAt}; then wait until nothing waits in ${at}'s accept queue, so none is reset when it closes`,
          { boundMs: ACCEPT_QUEUE_BOUND_MS },
        );
      add(
        'signal',
        `${stopOld ?? `send ${signal} to ${at}`}: it closes its listener first (new connections are refused and go to ${nextAt}), then answers with Connection: close${input.refusal && !input.refusal.ok ? ` (not refused first: ${input.refusal.reason}; a connection queued at ${at} as it closes is reset, a POST on it fails)` : ''}`,
      );
      add('wait-exit', `wait until ${at} refuses connections and has left (at most ${s(exitBoundMs)})`, {
        boundMs: exitBoundMs,
      });
      return;
    }
    if (old.slot !== undefined) {
      add(
        'swap',
        `rename the new instance's socket over ${old.slot} (no nginx reload); ${at}'s old process answers with Connection: close from now on`,
      );
      if (watchMs > 0)
        add(
          'watch',
          `watch the new process (exit, readiness, 502s naming the slot${readinessOnly ? `; ${threshold}` : `, status codes and request times against the other instances or the log before the deploy: ${threshold}`})${canaryNote}; on failure rename the old socket back`,
          { waitMs: watchMs + input.logDelayMs, ...extension(watchMs) },
        );
      add(
        'signal',
        `${stopOld ?? `send ${signal} to the old process`}: it stops accepting, closes each connection after its next answer, never an idle one`,
      );
      add(
        'wait-exit',
        `wait for the old process to exit once nginx closed its connections (at most its stop timeout ${s(Math.round(deploy.stopTimeout * 1000))})`,
        { boundMs: slotExitBoundMs },
      );
      return;
    }
    add('add', `add the new instance to upstream ${input.upstream}: validate, swap, reload`);
    if (watchMs > 0)
      add(
        'watch',
        `watch the new instance (exit, readiness, 502s naming it)${readinessOnly ? ` (${threshold})` : ` and the access log status codes and request times against the other instances or the log before the deploy (${threshold})`}${canaryNote}`,
        { waitMs: watchMs + input.logDelayMs, ...extension(watchMs) },
      );
    const drainText = `interval ${s(Math.round(healthCheck.interval * 1000))} × threshold ${healthCheck.failureThreshold} + margin ${s(drain.marginMs)}`;
    // Hooks without `stop`: the old instance is left running once it is out of the upstream.
    const noStop = launch.kind === 'hooks' && !launch.stop;
    if (deploy.drainMode === 'reload') {
      add('remove', `take ${at} out of upstream ${input.upstream}: validate, swap, reload`);
      add('confirm-idle', `confirm from the access log that ${at} gets no new requests`, {
        waitMs: CONFIRM_IDLE_MS + input.logDelayMs,
      });
      add(
        'signal',
        noStop
          ? stopOld!
          : `${stopOld ?? `send ${signal} to ${at}`}: its readiness turns 503, it drains (${drainText})`,
      );
      add(
        'wait-exit',
        noStop
          ? `nothing to wait for: ${at} is out of the upstream, idle, and left running (stop it yourself)`
          : `wait for ${at} to stop accepting (after ${s(drain.waitMs)}) and exit`,
        { boundMs: exitBoundMs },
      );
    } else {
      add(
        'signal',
        `${stopOld ?? `send ${signal} to ${at}`}: its readiness turns 503 while it keeps serving`,
      );
      add(
        'drain-detect',
        `wait interval × threshold (${s(drain.detectMs)}) for a balancer polling readiness to take ${at} out`,
        { waitMs: drain.detectMs },
      );
      add('remove', `take ${at} out of upstream ${input.upstream}: validate, swap, reload`);
      add(
        'confirm-idle',
        `wait the margin (${s(drain.marginMs)}) for in-flight requests; confirm ${at} gets no new requests`,
        { waitMs: Math.max(drain.marginMs, CONFIRM_IDLE_MS + input.logDelayMs) },
      );
      add('wait-exit', `wait for ${at} to stop accepting (${s(drain.waitMs)} after the signal) and exit`, {
        boundMs: exitBoundMs,
      });
    }
  });
  const fixed = steps.reduce((sum, step) => sum + (step.waitMs ?? 0), 0);
  const bounds = steps.reduce((sum, step) => sum + (step.boundMs ?? 0), 0);
  return {
    upstream: input.upstream,
    // Only what applies: the drain mode shapes reload-path rounds, the signal is told to proxyops' own child.
    ...(input.instances.some((old) => toReplacePath(old, launch) === 'reload')
      ? { drainMode: deploy.drainMode }
      : {}),
    ...(launch.kind === 'command' ? { stopSignal: signal } : {}),
    launch,
    ...(version === undefined ? {} : { version }),
    readinessPath,
    drain,
    logDelayMs: input.logDelayMs,
    gates,
    canaryMs,
    watch,
    instances: input.instances,
    paths: input.instances.map((instance) => toReplacePath(instance, launch)),
    envChanges: input.envChanges ?? [],
    // Hooks start instances their own way, with an environment of their own.
    envKept: launch.kind === 'command' ? (input.envKept ?? []) : [],
    steps,
    minMs: fixed,
    maxMs: fixed + bounds,
  };
}
