import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeployEvent } from '../core/deploy/deploy-events.js';
import { fillHook } from '../core/deploy/instance-command.js';
import { summarizeLogWindow, tallyInstance, type LogWindow } from '../core/deploy/log-window.js';
import { settleOwnStart, START_CAP, type RecordedStart } from '../core/deploy/own-start.js';
import { toAddress, type DeployStep } from '../core/deploy/plan-deploy.js';
import { watchStatusEvent } from '../core/deploy/status-event.js';
import { latencyWaiting } from '../core/deploy/latency-verdict.js';
import {
  fivexxFired,
  judgeNewInstance,
  latencyEvidence,
  newInstance5xx,
} from '../core/deploy/watch-gates.js';
import { judgesStatus, watchOutcome, watchProgress, watchUnseen } from '../core/deploy/watch-end.js';
import { READINESS_ONLY } from '../core/deploy/watch-sight.js';
import type { RoutedSample } from '../core/deploy/warm-up.js';
import { isProxyopsError } from '../core/errors.js';
import type { LogMark } from './access-logs.js';
import type { DeployContext } from './deploy-context.js';
import type { InstanceLauncher } from './instance-launcher.js';
import { runHook } from '../shell/process/run-hook.js';
import type { InstanceRecord } from '../shell/stack-state.js';
import { waitUntilRefusing } from '../shell/process/tcp-accepting.js';
import { waitUntilReady } from '../shell/process/wait-until-ready.js';
import type { TrafficSwitch } from './traffic-switch.js';

const COUNTDOWN_TICK_MS = 1_000;
const WATCH_POLL_MS = 250;
const DRAIN_POLL_MS = 10;
/** A killed process refuses connections a moment before it is seen gone: its exit is looked at this much later. */
const EXIT_SETTLE_MS = 200;
/** Longest run of a ready hook: it checks, it does not wait. */
const READY_HOOK_BOUND_MS = 10_000;
/** Part of the confirm-idle wait spent before its log window opens. */
const CONFIRM_GRACE_MS = 100;
/** nginx times requests with its cached clock: a request time may be short by a few milliseconds. */
const NGINX_CLOCK_SLACK_MS = 20;

/** A step failed in a way that ends the deploy (after cleaning up what the round started). */
export class Abort extends Error {
  constructor(
    message: string,
    readonly rolledBack: boolean,
    /** The deploy stops here, whatever `--max-fail` allows: the next round would fail the same way. */
    readonly fatal = false,
    /** Set when the round could not be judged (too few requests), not found bad: the `done` event says so. */
    readonly outcome?: 'not-judged',
  ) {
    super(message);
  }
}

/** What a round gets from the deploy around it: the interruption, and a call as each step starts. */
export interface RoundControl {
  /** Ctrl-C or `proxyops down`: the round is put back at the next step (see `run`). */
  interrupted: AbortSignal;
  /** Awaited once a step has started, before it acts: records the deploy's progress (and may hold it there). */
  atStep(step: DeployStep): Promise<void>;
}

/** A control that is never interrupted and records nothing. */
export const UNCONTROLLED: RoundControl = {
  interrupted: new AbortController().signal,
  atStep: () => Promise.resolve(),
};

/** What a round works on: the deploy's context and the list of instances it keeps up to date. */
export interface RoundInput {
  context: DeployContext;
  emit: (event: DeployEvent) => void;
  /** The access log before the deploy: the gates' baseline. */
  before: LogWindow;
  /** The old release's own start, recorded by the last deploy that went through (the latency gate's like with like). */
  start?: RecordedStart;
  /** The instances in the upstream, changed in place as the round goes. */
  current: InstanceRecord[];
  old: InstanceRecord;
  /** How traffic moves between the old and the new instance (slot rename, config change, …). */
  traffic: TrafficSwitch;
  /** Who starts and stops instances (proxyops's child, or the spec's hooks). */
  launcher: InstanceLauncher;
  /** The new instances this deploy put in so far (they run the release being deployed). */
  deployed?: () => InstanceRecord[];
  /** `--replace/--with`: the new instance, started by someone else (the round has no start step). */
  given?: InstanceRecord;
  save: () => Promise<void>;
  control?: RoundControl;
}

/**
 * Runs the steps of one round (one old instance replaced) and keeps what they learn. The steps are
 * the same on every path; only moving traffic (`traffic`) differs. Any failure before the old instance
 * is told to stop puts the round back: traffic to the old instance, the new one stopped and forgotten.
 */
export class RoundRunner {
  stepIndex = 0;
  /** The new instance's request times as its watch read them, once the watch passed: this release's own start. */
  start: RoutedSample | undefined;
  private fresh: InstanceRecord | undefined;
  private watchFrom: LogMark = [];
  private removedAt = 0;
  private signalAt = 0;
  /** What the look after a switch back found, when nginx did not list the servers put back. */
  rollbackUnconfirmed: string | undefined;
  private signalLogMark: LogMark = [];
  private refusing: Promise<number | undefined> | undefined;
  private leaving: Promise<string | undefined> = Promise.resolve(undefined);
  private readonly context: DeployContext;
  private readonly emit: (event: DeployEvent) => void;
  private readonly old: InstanceRecord;
  private readonly traffic: TrafficSwitch;
  private readonly launcher: InstanceLauncher;
  private readonly control: RoundControl;

  constructor(private readonly input: RoundInput) {
    this.context = input.context;
    this.emit = input.emit;
    this.old = input.old;
    this.traffic = input.traffic;
    this.launcher = input.launcher;
    this.fresh = input.given;
    this.control = input.control ?? UNCONTROLLED;
  }

  private get interrupted(): AbortSignal {
    return this.control.interrupted;
  }

  async run(step: DeployStep): Promise<void> {
    // Once the old instance was told to stop, the round is finished rather than left half-way.
    if (this.interrupted.aborted && this.signalAt === 0) await this.interrupt(step);
    this.stepIndex = step.index;
    this.emit({ type: 'step-start', step });
    await this.control.atStep(step);
    const began = Date.now();
    const outcome = await this.perform(step);
    // A watch cut short by the interruption judged nothing: the round is put back, not marked done.
    if (step.kind === 'watch' && this.interrupted.aborted && this.signalAt === 0)
      await this.interrupt(step, 'during');
    this.emit({ type: 'step-done', step, ms: Date.now() - began, outcome });
  }

  /**
   * Ends the round at an interruption: traffic back to the old instance, the new one stopped. The
   * reason names the round's instance: rounds of one batch each end with their own line.
   */
  private async interrupt(step: DeployStep, when: 'before' | 'during' = 'before'): Promise<never> {
    this.stepIndex = step.index;
    const serving = this.fresh?.inUpstream === true || !this.old.inUpstream;
    if (serving) await this.rollBack();
    else await this.cleanUp();
    throw new Abort(
      `interrupted ${when} step ${step.index} (${step.kind}) of the round of ${this.describe(this.old)}`,
      serving,
    );
  }

  /**
   * Puts the round back after a failure that is not its own verdict (a host lost, a hook that
   * failed): traffic back to the old instance while it was not told to stop yet, the new one
   * stopped. True when the new instance had served and was taken back out.
   */
  async putBack(): Promise<boolean> {
    if (this.signalAt !== 0) return false;
    if (this.fresh?.inUpstream === true || !this.old.inUpstream) {
      await this.rollBack();
      return true;
    }
    await this.cleanUp();
    return false;
  }

  /** Stops a new instance that gets no traffic yet and forgets it. */
  async cleanUp(): Promise<void> {
    const fresh = this.fresh;
    if (!fresh || fresh.inUpstream) return;
    await this.stopNew(fresh, false);
    await this.forget(fresh);
  }

  /**
   * Stops a new instance this round is done with. One handed over (`--with`) is someone else's and
   * left running, unless nginx lists its address anyway (an alternate): only a stop ends its traffic.
   */
  private async stopNew(fresh: InstanceRecord, serving: boolean): Promise<void> {
    if (fresh === this.input.given && this.traffic.path !== 'alternate') return;
    await this.launcher.stopNew(fresh, serving);
  }

  private async forget(instance: InstanceRecord, left = true): Promise<void> {
    const { context } = this;
    await this.traffic.release(instance, left);
    if (instance === this.fresh) this.fresh = undefined;
    const list = context.state.upstreams[context.upstream] ?? [];
    context.state.upstreams[context.upstream] = list.filter((i) => i !== instance);
    await this.input.save();
  }

  private describe(instance: InstanceRecord): string {
    return instance.socket === undefined
      ? toAddress(instance)
      : `on ${instance.socket} (pid ${instance.pid})`;
  }

  /** Readiness of an instance at its own address: the ready hook's exit, else GET of the readiness path. */
  private async isReady(instance: InstanceRecord): Promise<boolean> {
    const { plan, logsDir } = this.context;
    if (plan.launch.kind === 'hooks' && plan.launch.ready) {
      const argv = fillHook(plan.launch.ready, { ...instance, version: plan.version });
      const on = this.context.hostOf(instance);
      const ran = await runHook(argv, {
        boundMs: READY_HOOK_BOUND_MS,
        logFile: join(logsDir, 'hooks.log'),
        ...(on ? { on } : {}),
      });
      return ran.exitCode === 0;
    }
    return (await this.traffic.probe(instance, plan.readinessPath)) === 200;
  }

  private async perform(step: DeployStep): Promise<string> {
    const { context, old, traffic, input } = this;
    const { pool, plan } = context;
    switch (step.kind) {
      case 'start': {
        const { record, outcome } = await this.launcher.start(await traffic.place(old));
        this.fresh = record;
        context.state.upstreams[context.upstream] = [
          ...(context.state.upstreams[context.upstream] ?? []),
          record,
        ];
        await input.save();
        return outcome;
      }
      case 'wait-ready': {
        const fresh = this.fresh!;
        const result = await waitUntilReady(plan.readinessPath, {
          boundMs: step.boundMs!,
          pollMs: Math.min(250, Math.max(20, Math.round(pool.healthCheck.interval * 250))),
          isAlive: async () => !(await this.launcher.hasExited(fresh)),
          probe: async () => ((await this.isReady(fresh)) ? 200 : 0),
        });
        if (!result.ready) {
          const kept = fresh === input.given && traffic.path !== 'alternate';
          await this.cleanUp();
          throw new Abort(
            result.reason === 'exited'
              ? `the new instance ${this.describe(fresh)} exited before it was ready (see ${fresh.logFile}); nothing else changed`
              : `the new instance ${this.describe(fresh)} was not ready within ${step.boundMs} ms (last answer: ${result.lastStatus || 'none'}); it was ${kept ? 'left running' : 'stopped'}, nothing else changed`,
            false,
          );
        }
        return `ready after ${result.ms} ms`;
      }
      case 'swap':
      case 'add': {
        const fresh = this.fresh!;
        const { outcome, oldOut } = await traffic.switchIn(fresh, old, input.current);
        // The new instance takes its old one's place in the list (beside it until the old leaves), so
        // the next deploy's rounds, and so its canary, come in the same order however a batch's
        // rounds interleave.
        const at = input.current.indexOf(old);
        if (oldOut) {
          input.current.splice(at, 1, fresh);
          old.inUpstream = false;
        } else if (at === -1) input.current.push(fresh);
        else input.current.splice(at + 1, 0, fresh);
        fresh.inUpstream = true;
        await input.save();
        this.watchFrom = await context.logs.end();
        return outcome;
      }
      case 'watch': {
        const window = await this.watch(step, this.watchFrom);
        this.start = window.start;
        if (window.notJudged !== undefined)
          return `new instance alive and ready; kept as a rollback is: ${window.notJudged}`;
        return plan.watch.mode === 'readiness-only'
          ? `new instance alive and ready (${READINESS_ONLY})`
          : `new instance alive and ready, status codes ok (${window.distribution.total} requests)`;
      }
      case 'remove': {
        const rest = input.current.filter((i) => i !== old);
        const outcome = await traffic.takeOut(old, rest);
        input.current.splice(input.current.indexOf(old), 1);
        old.inUpstream = false;
        this.removedAt = Date.now();
        await input.save();
        return outcome ?? `${toAddress(old)} is out of upstream ${context.upstream}`;
      }
      case 'confirm-idle': {
        // Requests the old workers were still finishing are logged in the first moments; a request
        // logged later with a request time shorter than the time since the reload began after it.
        await sleep(CONFIRM_GRACE_MS);
        const windowStart = Date.now();
        const from = await context.logs.end();
        const freshBelowMs = windowStart - this.removedAt - NGINX_CLOCK_SLACK_MS;
        const window = await this.watch(step, from, freshBelowMs, step.waitMs! - CONFIRM_GRACE_MS);
        const reached = window.byAddress[toAddress(old)]?.fresh ?? 0;
        if (reached > 0) {
          const rolledBack = this.signalAt === 0;
          if (rolledBack) await this.rollBack();
          throw new Abort(
            `${toAddress(old)} still got ${reached} new request(s) after the reload`,
            rolledBack,
          );
        }
        // A readiness-only watch may read a log that names no upstream: say so rather than vouch.
        return `no new requests reached ${toAddress(old)}${plan.watch.mode === 'readiness-only' ? ` in the log (${READINESS_ONLY}: it may not name the upstream)` : ''}`;
      }
      case 'signal':
        return this.signalOld();
      case 'drain-detect': {
        await this.countdown(step, step.waitMs!);
        // Readiness fails now, yet the instance must keep answering until the balancer took it out.
        const { text } = await context.logs.since(this.signalLogMark);
        const served = summarizeLogWindow(context.kit, text).byAddress[toAddress(old)];
        return `${toAddress(old)} served ${served?.total ?? 0} request(s) (${served?.fivexx ?? 0} 5xx) while failing readiness`;
      }
      case 'wait-exit':
        return this.waitForOld(step);
    }
  }

  /**
   * Tells the old instance to leave (its drain), by signal or by its stop hook. On TCP, polling for
   * refused connections begins at once: its time since then is the drain measured.
   */
  private async signalOld(): Promise<string> {
    const { old, context } = this;
    const { pool, plan } = context;
    // Taken before the signal: the drain measured from it is never shorter than the real one.
    const signalledAt = Date.now();
    const leaving = await this.launcher.stopOld(old);
    // Told to stop from here on, whatever fails next (a lost host): never put back to serve.
    this.signalAt = Date.now();
    this.leaving = leaving.done;
    this.signalLogMark = await context.logs.end();
    if (this.traffic.tcp && leaving.leaves)
      this.refusing = waitUntilRefusing(old.host, old.port, {
        boundMs: plan.drain.waitMs + pool.deploy.stopTimeout * 1000,
        pollMs: DRAIN_POLL_MS,
      }).then((ms) => (ms === undefined ? undefined : Date.now() - signalledAt));
    return leaving.outcome;
  }

  /** Waits for the old instance to leave (our own child killed past the step's bound) and forgets it. */
  private async waitForOld(step: DeployStep): Promise<string> {
    const { old, context, input } = this;
    const pid = old.pid;
    const left = () => Math.max(0, step.boundMs! - (Date.now() - this.signalAt));
    const failed = await within(this.leaving, left());
    const measuredMs = this.refusing ? ((await this.refusing) ?? null) : undefined;
    if (measuredMs !== undefined)
      this.emit({
        type: 'drain',
        step: step.index,
        address: toAddress(old),
        ...(context.plan.launch.kind === 'hooks' ? {} : { computedMs: context.plan.drain.waitMs }),
        measuredMs,
      });
    const gone = await this.launcher.waitGone(old, left());
    // Out of the upstream's list (on an alternate pair nginx still lists the address, which now refuses).
    if (input.current.includes(old)) input.current.splice(input.current.indexOf(old), 1);
    old.inUpstream = false;
    const hasLeft = gone === 'killed' || (failed === undefined && measuredMs !== null);
    await this.forget(old, hasLeft);
    // On the alternate path nginx lists its address for ever: a refusal made for it stays.
    const kept =
      !hasLeft && this.removedAt !== 0 ? `; nginx's new connections to ${toAddress(old)} stay refused` : '';
    if (failed !== undefined)
      throw new Abort(
        failed === 'timeout'
          ? `the stop hook for ${toAddress(old)} did not return within ${step.boundMs} ms; the new instance serves${kept}`
          : `${failed}; the new instance serves${kept}`,
        false,
      );
    if (gone === 'killed') return `${this.describe(old)} did not exit within ${step.boundMs} ms: killed`;
    if (measuredMs === null)
      return `${toAddress(old)} still accepts connections ${step.boundMs} ms after it was told to stop${kept}`;
    if (gone === 'unknown')
      return measuredMs === undefined
        ? `${toAddress(old)} is idle and may be stopped`
        : `${toAddress(old)} stopped accepting after ${measuredMs} ms: idle`;
    return measuredMs === undefined
      ? `pid ${pid ?? '?'} exited ${Date.now() - this.signalAt} ms after the signal`
      : `${toAddress(old)} stopped accepting after ${measuredMs} ms and exited`;
  }

  /**
   * Reads the log from `from` for the step's wait, counting down. The new instance must stay alive
   * and ready, no proxy-generated 502 may name it, and its status codes and request times must pass the gates;
   * any of these rolls the round back whatever the request count.
   */
  private async watch(
    step: DeployStep,
    from: LogMark,
    freshBelowMs = 0,
    windowMs = step.waitMs!,
  ): Promise<LogWindow & { notJudged?: string; start?: RoutedSample }> {
    const { context } = this;
    const began = Date.now();
    const deadline = began + windowMs;
    const { watch: how, gates } = context.plan;
    const maxRatio = gates.maxP99Ratio;
    const readinessOnly = how.mode === 'readiness-only';
    // A gated watch calls the new instance good only on enough of its own requests: with fewer it
    // goes on, up to the step's bound (deploy.maxWatch), then stops the deploy: nothing was judged.
    // Only it runs the status gates (see judgesStatus).
    const judged = judgesStatus(step.kind, readinessOnly);
    const bound = deadline + (judged ? (step.boundMs ?? 0) : 0);
    const fresh = this.fresh!;
    // This deploy's earlier new instances run the same release: the 5xx gate compares with the release
    // before only (see newInstance5xx).
    const earlier = (this.input.deployed?.() ?? []).filter((i) => i !== fresh);
    const key = this.traffic.key(fresh);
    const tally = tallyInstance(
      context.kit,
      freshBelowMs,
      key,
      earlier.map((i) => this.traffic.key(i)),
    );
    let offset = from;
    let lastTick = 0;
    let lastWhy: string | undefined;
    // Not ready is `failureThreshold` failed probes in a row, as a balancer polling readiness judges it:
    // one probe lost to a busy machine (its 1 s timeout) is not a broken version.
    const threshold = context.pool.healthCheck.failureThreshold;
    let unready = 0;
    // Where the whole instance's latency slices stop once the watch goes on for a route alone.
    let wholeUpTo: number | undefined;
    for (;;) {
      const chunk = await context.logs.since(offset);
      tally.add(chunk.text);
      offset = chunk.end;
      const { window, split, excluding } = tally.look();
      // Only a judging watch reads request times: confirm-idle and readiness-only report none.
      const looked =
        judged && maxRatio !== null
          ? latencyEvidence(
              this.input.before,
              split.mine,
              split.others,
              maxRatio,
              wholeUpTo,
              this.input.start,
            )
          : undefined;
      const waiting = looked && latencyWaiting(looked);
      const answered = split.mine.distribution.total;
      const progress = watchProgress(
        {
          now: Date.now(),
          began,
          deadline,
          bound,
          judged,
          answered,
          minRequests: how.minRequests,
          interrupted: this.interrupted.aborted,
          latencyCold: split.mine.latencyMs.length > 0 && waiting?.cold === true,
          routesShort: (waiting?.routes.length ?? 0) > 0,
          latencyPending: waiting?.pending === true,
        },
        this.describe(fresh),
      );
      const { done, notJudged } = progress;
      // A watch that ends while the latency verdict is pending: settled on what it saw (settleOwnStart).
      const latency = done && looked ? settleOwnStart(looked) : looked;
      if (progress.routesOnly) wholeUpTo ??= split.mine.latencyMs.length;
      const remaining = progress.waitEnd - Date.now();
      const fivexx = judged
        ? newInstance5xx(
            this.input.before,
            split.mine,
            excluding.others,
            context.plan.gates,
            progress.minimum,
          )
        : undefined;
      const gate = judged
        ? ((fivexx && fivexxFired(fivexx)) ??
          judgeNewInstance(this.input.before, split.mine, split.others, gates, progress.minimum, latency))
        : undefined;
      const ready = await this.isReady(fresh);
      unready = ready ? 0 : unready + 1;
      // Looked at after the probe (and a moment later when it failed), so an exit is reported as the exit it is.
      if (!ready) await sleep(EXIT_SETTLE_MS);
      const exited = await this.launcher.hasExited(fresh);
      const badGateway = window.byAddress[toAddress(fresh)]?.badGateway ?? 0;
      const broken = exited
        ? `the new instance ${this.describe(fresh)} exited during the watch (see ${fresh.logFile})`
        : unready >= threshold
          ? `the new instance ${this.describe(fresh)} failed ${unready} readiness checks in a row during the watch`
          : badGateway > 0
            ? `nginx answered 502 for ${badGateway} request(s) to ${toAddress(fresh)} during the watch`
            : undefined;
      const outcome = watchOutcome({
        ...(broken === undefined ? {} : { broken }),
        ...(gate ? { gate: gate.text } : {}),
        ...(notJudged === undefined ? {} : { notJudged }),
        keepNotJudged: how.keepNotJudged,
      });
      if (done || outcome.kind === 'failed') {
        const unseen = watchUnseen({
          planned: how.unseen,
          readinessOnly,
          separated: split.separated,
          total: window.distribution.total,
          latencyGate: gates.maxP99Ratio !== null,
          gateFired: gate !== undefined,
          ...(latency?.verdict === 'not judged'
            ? { latencyNotJudged: latency.note ?? 'too few request times' }
            : {}),
          ...(waiting?.routes.length ? { routesNotJudged: waiting.routes.map((r) => r.note!) } : {}),
          ...(notJudged === undefined ? {} : { notJudgedAnswered: answered }),
        });
        const unjudged =
          outcome.kind === 'kept-not-judged' || (outcome.kind === 'failed' && outcome.notJudged);
        this.emit(
          watchStatusEvent({
            step: step.index,
            before: this.input.before,
            window,
            failed: outcome.kind === 'failed',
            ...(outcome.kind === 'failed' ? { reason: outcome.reason } : {}),
            newInstance: {
              address: toAddress(fresh),
              ...('instance' in key ? { instance: key.instance } : {}),
              mine: split.mine,
              separated: split.separated,
            },
            gate,
            ...(fivexx ? { fivexx } : {}),
            ...(latency ? { latency: gate?.latency ?? latency } : {}),
            mode: how.mode,
            unseen,
            notJudged: unjudged,
          }),
        );
        if (outcome.kind === 'failed') {
          await this.rollBack();
          if (outcome.stops)
            throw new Abort(
              `${outcome.reason}: rolled back, and the deploy stops here; add traffic or use --watch readiness-only`,
              true,
              true,
              'not-judged',
            );
          throw new Abort(`${outcome.reason}: rolled back`, true);
        }
        // Only the new instance's own request times are its start (a log that names none gives the whole window's).
        const timed = judged && split.separated && split.mine.latencyMs.length > 0;
        const start = timed
          ? {
              ms: split.mine.latencyMs.slice(0, START_CAP),
              routes: split.mine.latencyRoutes.slice(0, START_CAP),
            }
          : undefined;
        return {
          ...window,
          ...(outcome.kind === 'kept-not-judged' ? { notJudged: outcome.reason } : {}),
          ...(start ? { start } : {}),
        };
      }
      // Past the watch, waiting for enough requests: the time left is the bound's.
      const left = remaining > 0 ? remaining : bound - Date.now();
      // The time left restarts from a later end past the wait: the first tick of each reason says why.
      const why = progress.goesOn !== lastWhy ? progress.goesOn : undefined;
      if (Date.now() - lastTick >= COUNTDOWN_TICK_MS || why !== undefined) {
        this.emit({
          type: 'countdown',
          step: step.index,
          remainingMs: left,
          ...(why === undefined ? {} : { goesOn: why }),
        });
        lastTick = Date.now();
        lastWhy = progress.goesOn;
      }
      await sleep(Math.max(0, Math.min(WATCH_POLL_MS, left)));
    }
  }

  /**
   * Back to the traffic before this round: the new instance out and stopped, the old one serving
   * again unless it was already told to stop.
   */
  private async rollBack(): Promise<void> {
    const { old, input } = this;
    const fresh = this.fresh;
    const servers = [...input.current];
    const oldBack = this.signalAt === 0 && !servers.includes(old);
    const at = fresh ? servers.indexOf(fresh) : -1;
    if (at >= 0) servers.splice(at, 1, ...(oldBack ? [old] : []));
    else if (oldBack) servers.push(old);
    // A look after the switch back that finds nginx otherwise is said in the abort, the rollback
    // still finished: the new instance stopped, the state as the round left it.
    if (fresh)
      await this.traffic.switchBack(fresh, old, servers).catch((error: unknown) => {
        if (!isProxyopsError(error) || error.code !== 'LIVE_NGINX_DIFFERS') throw error;
        this.rollbackUnconfirmed = error.message;
      });
    input.current.splice(0, input.current.length, ...servers);
    if (oldBack) old.inUpstream = true;
    if (!fresh) return;
    fresh.inUpstream = false;
    await input.save();
    await this.stopNew(fresh, true);
    await this.forget(fresh);
  }

  private async countdown(step: DeployStep, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || this.interrupted.aborted) return;
      this.emit({ type: 'countdown', step: step.index, remainingMs: remaining });
      await sleep(Math.min(COUNTDOWN_TICK_MS, remaining));
    }
  }
}

/** `promise`'s value, or `timeout` after `ms`; the timer never outlives it (nor keeps the process up). */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms))),
  ]).finally(() => clearTimeout(timer));
}
