import { mkdir } from 'node:fs/promises';
import { applyConfig } from '../config/apply-config.js';
import type { DeployEvent } from '../core/deploy/deploy-events.js';
import { summarizeLogWindow } from '../core/deploy/log-window.js';
import { toAddress, type DeployPlan } from '../core/deploy/plan-deploy.js';
import { recordStart } from '../core/deploy/own-start.js';
import type { RoutedSample } from '../core/deploy/warm-up.js';
import { isProxyopsError } from '../core/errors.js';
import { changeProxies } from '../config/apply-to-proxies.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import { hostOf, openFleet } from './fleet.js';
import { planBatches } from '../core/deploy/plan-batches.js';
import {
  loadDeployContext,
  pairOf,
  pickUpstream,
  writeStepSpec,
  type DeployContext,
  type DeployTarget,
} from './deploy-context.js';
import { Abort, RoundRunner, UNCONTROLLED, type RoundControl } from './deploy-round.js';
import { removeDeployProgress, writeDeployProgress, type DeployProgress } from '../shell/deploy-progress.js';
import { readProcessIdentity } from '../shell/process/process-identity.js';
import { checkSpecWorkerAccess } from '../shell/nginx/worker-access.js';
import { lockDeploys } from '../shell/stack-state.js';
import { childLauncher, hookLauncher } from './instance-launcher.js';
import { alternateSwitch } from './switch-by-alternate.js';
import { createLocalHost } from '../shell/host/local-host.js';
import { reloadSwitch } from './switch-by-reload.js';
import { slotSwitch } from './switch-by-slot.js';
import { checkedSwitch, checkLiveNginx, liveRefusal, readCurrentMain } from './live-nginx-check.js';
import type { TrafficSwitch } from './traffic-switch.js';

export { loadDeployContext, type DeployContext, type DeployTarget };

/** A refusal outlives the bounds of the steps it is made for by this much (a lost nginx host lifts it then). */
const REFUSAL_SLACK_MS = 30_000;

/** How a deploy ended. */
export interface DeployReport {
  /** `not-judged`: aborted because the watch could not judge a new instance (too few requests), not because it was bad. */
  outcome: 'deployed' | 'aborted' | 'not-judged';
  instances: string[];
  ms: number;
}

/**
 * Walks the plan: for each old instance, start a new one, wait until it is ready, add it, watch the
 * status codes, take the old one out and drain it. Any failure before the old instance is signalled
 * leaves the old instances serving and the config as it was; the report says `aborted`.
 */
export async function runDeploy(
  context: DeployContext,
  emit: (event: DeployEvent) => void,
  control: RoundControl = UNCONTROLLED,
): Promise<DeployReport> {
  const started = Date.now();
  const { plan } = context;
  emit({ type: 'plan', plan });
  const current = [...context.instances];
  const before = summarizeLogWindow(context.kit, await context.logs.baseline());
  // The old release's own start, as the last deploy that went through recorded it; this deploy's
  // new instances' starts replace it only if it goes through too.
  const start = context.state.starts?.[context.upstream];
  const starts: RoutedSample[] = [];
  const save = async () => {
    const others = (context.state.upstreams[context.upstream] ?? []).filter(
      (i) => !i.inUpstream && !current.includes(i),
    );
    context.state.upstreams[context.upstream] = [...current, ...others.filter((i) => i.pid !== undefined)];
    await context.saveState(context.state);
  };
  const { fleet } = context;
  // Across hosts, each config change goes to every nginx host as one change, over the locked sessions.
  const byReload = reloadSwitch(context.upstream, async (servers) => {
    const specPath = await writeStepSpec(context, servers);
    if (fleet) await changeProxies(fleet.proxies, await readSpecFile(specPath), () => undefined);
    else await applyConfig({ specPath, target: context.target });
  });

  // Each switch is followed by a look at the live nginx (on every nginx host, across hosts).
  const checked = (traffic: TrafficSwitch) => checkedSwitch(context, traffic);
  const switches = {
    slot: checked(slotSwitch),
    reload: checked(byReload),
    alternate: checked(
      alternateSwitch({
        alternateOf: (old) => pairOf(context.pool, old)!,
        refusal: context.refusal,
        // The old instance's drain and exit at most, and some slack for the steps around them.
        refuseBoundMs: Math.max(0, ...plan.steps.map((s) => s.boundMs ?? 0)) + REFUSAL_SLACK_MS,
        hostOf: (instance) => context.hostOf(instance) ?? createLocalHost(),
      }),
    ),
  };
  /** One round: its steps, or on a failure the round put back and an abort event; how it ended. */
  /** Rounds that failed only because their watch could not judge the new instance. */
  let unjudged = 0;
  const runRound = async (round: number): Promise<'ok' | 'failed' | 'fatal'> => {
    const old = current.find((i) => toAddress(i) === toAddress(plan.instances[round - 1]!))!;
    const traffic = switches[plan.paths[round - 1]!];
    const launcher = plan.launch.kind === 'command' ? childLauncher(context, traffic) : hookLauncher(context);
    const appHost = context.hostOf(old)?.name;
    const round_ = new RoundRunner({
      context,
      emit: appHost ? withHost(emit, appHost) : emit,
      before,
      ...(start ? { start } : {}),
      current,
      old,
      traffic,
      launcher,
      ...(context.handOverTo ? { given: context.handOverTo } : {}),
      deployed: () => current.filter((i) => !context.instances.includes(i)),
      save,
      control,
    });
    try {
      for (const step of plan.steps.filter((s) => s.round === round)) await round_.run(step);
      if (round_.start) starts.push(round_.start);
      return 'ok';
    } catch (error) {
      const putBack = error instanceof Abort ? error.rolledBack : await round_.putBack().catch(() => false);
      const said = error instanceof Abort || isProxyopsError(error) ? error.message : String(error);
      const unconfirmed = round_.rollbackUnconfirmed;
      const reason = unconfirmed ? `${said}; ${unconfirmed}` : said;
      const step = plan.steps.find((s) => s.index === round_.stepIndex);
      const host = hostOf(error) ?? appHost;
      emit({
        type: 'abort',
        step: round_.stepIndex,
        reason,
        rolledBack: putBack && !unconfirmed,
        ...(step ? { kind: step.kind } : {}),
        ...(host ? { host } : {}),
      });
      if (!(error instanceof Abort) && !isProxyopsError(error)) throw error;
      // Every round needs every nginx host (its log, its config): one lost ends the deploy.
      const nginxHost = host !== undefined && fleet?.proxies.some((s) => s.host.name === host);
      if (error instanceof Abort && error.outcome === 'not-judged') unjudged += 1;
      const stops = nginxHost || control.interrupted.aborted || (error instanceof Abort && error.fatal);
      return stops ? 'fatal' : 'failed';
    }
  };
  const { batch, canary, maxFail = 0 } = context.batches ?? {};
  const batches = planBatches(
    plan.instances.map((instance, i) => ({ round: i + 1, host: context.hostOf(instance)?.name })),
    { ...(batch ? { batch } : {}), canary: canary ?? false },
  );
  let failed = 0;
  try {
    for (const rounds of batches) {
      const ended = await Promise.all(rounds.map(runRound));
      failed += ended.filter((e) => e !== 'ok').length;
      if (failed > maxFail || ended.includes('fatal') || (failed > 0 && control.interrupted.aborted)) break;
    }
  } finally {
    // The rounds' watches are over: what reads the log lets go of its descriptors.
    context.logs.close();
  }
  if (failed > 0) {
    const report = {
      // Only a failure other than "could not judge" says the release is bad.
      outcome: unjudged === failed ? ('not-judged' as const) : ('aborted' as const),
      instances: current.map(toAddress),
      ms: Date.now() - started,
    };
    emit({ type: 'done', ...report });
    return report;
  }
  // The settings changed on purpose become the stack's only now that every instance runs with them;
  // so does the release (a rollback swaps the two, so a second one goes forward again).
  const release = context.state.releases?.[context.upstream];
  if (plan.version !== undefined && plan.version !== release?.current)
    context.state.releases = {
      ...context.state.releases,
      [context.upstream]: { current: plan.version, ...(release ? { previous: release.current } : {}) },
    };
  if (plan.envChanges.length > 0) context.state.instanceEnv = context.instanceEnv;
  // So does its start; a deploy that read none (readiness-only) leaves no record of an older release's.
  const { [context.upstream]: _replaced, ...otherStarts } = context.state.starts ?? {};
  const recorded =
    starts.length > 0 ? recordStart(starts, new Date().toISOString(), plan.version) : undefined;
  const startsNow = recorded ? { ...otherStarts, [context.upstream]: recorded } : otherStarts;
  if (Object.keys(startsNow).length > 0) context.state.starts = startsNow;
  else delete context.state.starts;
  if (plan.envChanges.length > 0 || plan.version !== undefined || recorded || start)
    await context.saveState(context.state);
  const report = {
    outcome: 'deployed' as const,
    instances: current.map(toAddress),
    ms: Date.now() - started,
  };
  emit({ type: 'done', ...report });
  return report;
}

/**
 * Holds a deploy inside the first step of this kind (after it started, before it acts) until the
 * deploy is interrupted, with `held` in its progress file: what lets a test stop the stack during a
 * step that otherwise takes no time (a swap, a signal). Unset in normal use.
 */
export const HOLD_ENV = 'PROXYOPS_DEPLOY_HOLD';
const HOLD_BOUND_MS = 120_000;

/**
 * Takes the target's deploy lock, reads the context under it and runs the deploy, recording before
 * each step where it is (`deploy-progress.json`, with this process's identity, so `proxyops down` can
 * find it and interrupt it). `interrupted` (Ctrl-C, `down`) ends it before the next step with the
 * round rolled back.
 */
export async function deploy(
  where: DeployTarget,
  emit: (event: DeployEvent) => void,
  interrupted: AbortSignal = new AbortController().signal,
): Promise<DeployReport> {
  await mkdir(where.target, { recursive: true, mode: 0o755 });
  if (where.proxies) return deployAcrossHosts(where, emit, interrupted);
  const unlock = await lockDeploys(where.target);
  const identity = await readProcessIdentity(process.pid);
  const record = (at: Omit<DeployProgress, 'pid' | 'identity'>) =>
    writeDeployProgress(where.target, { pid: process.pid, ...(identity ? { identity } : {}), ...at });
  let holdAt = process.env[HOLD_ENV];
  const control: RoundControl = {
    interrupted,
    async atStep(step) {
      const held = step.kind === holdAt;
      await record({ round: step.round, step: step.index, kind: step.kind, ...(held ? { held } : {}) });
      if (!held) return;
      holdAt = undefined;
      await untilAborted(interrupted, HOLD_BOUND_MS);
    },
  };
  try {
    await record({ round: 0, step: 0, kind: 'plan' });
    const context = await loadDeployContext(where);
    await beforeFirstStep(context, emit, async () => {
      // The plan is a picture of nginx: the nginx that runs must match it before anything starts.
      await checkLiveNginx(context);
      // New instances listen beside their slot (or on a port): nginx's workers must reach them. A
      // hand-written config's paths are its own, and its instances TCP addresses (no slot).
      if (!context.adopted) await checkSpecWorkerAccess(context.spec, await readCurrentMain(context.target));
    });
    return await runDeploy(context, emit, control);
  } finally {
    await removeDeployProgress(where.target);
    await unlock();
  }
}

/**
 * `deploy plan`: the plan, and why the deploy would be refused now (`refused`) by the look it makes
 * before its first step (the live nginx against the plan, the adoption record, drift, a gated watch
 * that cannot see: one line each). Changes nothing: across hosts, it reads every nginx host
 * over a session that takes no lock.
 */
export async function planWithLook(where: DeployTarget): Promise<{ plan: DeployPlan; refused?: string }> {
  const look = async (at: DeployTarget) => {
    // A watch that cannot see is named as the live look's refusals are, after a plan drawn anyway.
    const context = await loadDeployContext({ ...at, planOnly: true });
    const refusals = [context.refusedNow, await liveRefusal(context)].filter(
      (line): line is string => line !== undefined,
    );
    return { plan: context.plan, ...(refusals.length === 0 ? {} : { refused: refusals.join('\n') }) };
  };
  if (!where.proxies) return look(where);
  const written = await readSpecFile(where.specPath);
  const fleet = await openFleet(written, pickUpstream(written, where.upstream), true);
  try {
    return await look({ ...where, fleet });
  } finally {
    await fleet.close();
  }
}

/**
 * A deploy to the nginx hosts of the spec: every host's deploy lock taken in the order of
 * `proxies` (the fleet-wide lock), the rounds run as on one machine, each step recorded on every
 * nginx host (what `deploy status` shows), the locks released at the end whatever happened.
 */
async function deployAcrossHosts(
  where: DeployTarget,
  emit: (event: DeployEvent) => void,
  interrupted: AbortSignal,
): Promise<DeployReport> {
  const written = await readSpecFile(where.specPath);
  const fleet = await openFleet(written, pickUpstream(written, where.upstream));
  try {
    const control: RoundControl = {
      interrupted,
      atStep: (step) => fleet.writeState(undefined, { round: step.round, step: step.index, kind: step.kind }),
    };
    const context = await loadDeployContext({ ...where, fleet });
    await beforeFirstStep(context, emit, () => checkLiveNginx(context));
    return await runDeploy(context, emit, control);
  } finally {
    await fleet.close();
  }
}

/**
 * The checks before the first step. A refusal (a live nginx that differs, drift, an instance that
 * cannot take the alternate path) is thrown as it is, and is also the plan event with `refused`,
 * as `deploy plan --json` prints it: a --json reader sees why nothing started.
 */
async function beforeFirstStep(
  context: DeployContext,
  emit: (event: DeployEvent) => void,
  check: () => Promise<void>,
): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (isProxyopsError(error)) emit({ type: 'plan', plan: context.plan, refused: error.message });
    throw error;
  }
}

/** Events of a round on another host carry its name (per-host progress lines, `--json`). */
function withHost(emit: (event: DeployEvent) => void, host: string): (event: DeployEvent) => void {
  return (event) =>
    emit(event.type === 'step-start' || event.type === 'step-done' ? { ...event, host } : event);
}

function untilAborted(signal: AbortSignal, boundMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, boundMs);
    const done = () => (clearTimeout(timer), resolve());
    if (signal.aborted) done();
    else signal.addEventListener('abort', done, { once: true });
  });
}
