import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeployEvent } from './core/deploy/deploy-events.js';
import { toInstanceCommand } from './core/deploy/instance-command.js';
import { splitByInstance, summarizeLogWindow, type LogWindow } from './core/deploy/log-window.js';
import { toAddress, type DeployStep } from './core/deploy/plan-deploy.js';
import { EARLY_DECISION_REQUESTS } from './core/deploy/status-watch.js';
import { watchStatusEvent } from './core/deploy/status-event.js';
import { judgeGates, judgeNewInstance } from './core/deploy/watch-gates.js';
import type { DeployContext } from './deploy-context.js';
import { findListenerPid } from './shell/find-listener-pid.js';
import {
  isProcessAlive,
  recordedStatus,
  signalRecorded,
  startInstance,
  stopRecorded,
  waitForExit,
} from './shell/instance-process.js';
import { readProcessIdentity } from './shell/process-identity.js';
import { fileSize } from './shell/read-file-range.js';
import { readLogSince } from './shell/read-log-since.js';
import { writeStackState, type InstanceRecord } from './shell/stack-state.js';
import { pickFreePort, waitUntilRefusing } from './shell/tcp-accepting.js';
import { waitUntilReady } from './shell/wait-until-ready.js';

const COUNTDOWN_TICK_MS = 1_000;
const WATCH_POLL_MS = 250;
const DRAIN_POLL_MS = 10;
/** Part of the confirm-idle wait spent before its log window opens. */
const CONFIRM_GRACE_MS = 100;
/** nginx times requests with its cached clock: a request time may be short by a few milliseconds. */
const NGINX_CLOCK_SLACK_MS = 20;

/** A step failed in a way that ends the deploy (after cleaning up what the round started). */
export class Abort extends Error {
  constructor(
    message: string,
    readonly rolledBack: boolean,
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

/** Runs the steps of one round (one old instance replaced) and keeps what they learn. */
export class RoundRunner {
  stepIndex = 0;
  private fresh: InstanceRecord | undefined;
  private watchFrom = 0;
  private reloadAt = 0;
  private signalAt = 0;
  private signalLogOffset = 0;
  private refusing: Promise<number | undefined> | undefined;

  constructor(
    private readonly context: DeployContext,
    private readonly emit: (event: DeployEvent) => void,
    private readonly before: LogWindow,
    private readonly current: InstanceRecord[],
    private readonly old: InstanceRecord,
    private readonly apply: (servers: InstanceRecord[]) => Promise<void>,
    private readonly save: () => Promise<void>,
    private readonly control: RoundControl = UNCONTROLLED,
  ) {}

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
    this.emit({ type: 'step-done', step, ms: Date.now() - began, outcome });
  }

  /** Ends the round at an interruption: back to the config before it, the new instance stopped. */
  private async interrupt(step: DeployStep): Promise<never> {
    this.stepIndex = step.index;
    const serving = this.fresh?.inUpstream === true || !this.old.inUpstream;
    if (serving) await this.rollBack();
    else await this.cleanUp();
    throw new Abort(`interrupted before step ${step.index} (${step.kind})`, serving);
  }

  /** Stops a new instance that is not serving yet and forgets it. */
  async cleanUp(): Promise<void> {
    const fresh = this.fresh;
    if (!fresh || fresh.inUpstream || fresh.pid === undefined) return;
    await stopRecorded(fresh, 'SIGTERM', this.context.pool.deploy.stopTimeout * 1000);
    this.fresh = undefined;
    const list = this.context.state.upstreams[this.context.upstream] ?? [];
    this.context.state.upstreams[this.context.upstream] = list.filter((i) => i !== fresh);
    await this.save();
  }

  private async perform(step: DeployStep): Promise<string> {
    const { context } = this;
    const { pool, plan } = context;
    switch (step.kind) {
      case 'start': {
        const address = { host: this.old.host, port: await pickFreePort(this.old.host) };
        const logFile = join(context.logsDir, `instance-${address.port}.log`);
        const instance = await startInstance(toInstanceCommand(pool.deploy, pool, address), {
          logFile,
          env: context.instanceEnv,
          stopSignal: pool.deploy.stopSignal,
        });
        this.fresh = {
          ...address,
          pid: instance.pid,
          logFile,
          inUpstream: false,
          ...(instance.identity ? { identity: instance.identity } : {}),
        };
        context.state.upstreams[context.upstream] = [
          ...(context.state.upstreams[context.upstream] ?? []),
          this.fresh,
        ];
        await writeStackState(context.target, context.state);
        return `started ${toAddress(address)} (pid ${instance.pid}, log ${logFile})`;
      }
      case 'wait-ready': {
        const fresh = this.fresh!;
        const url = `http://${toAddress(fresh)}${plan.readinessPath}`;
        const result = await waitUntilReady(url, {
          boundMs: step.boundMs!,
          pollMs: Math.min(250, Math.max(20, Math.round(pool.healthCheck.interval * 250))),
          isAlive: () => isProcessAlive(fresh.pid!),
        });
        if (!result.ready) {
          await this.cleanUp();
          throw new Abort(
            result.reason === 'exited'
              ? `the new instance ${toAddress(fresh)} exited before it was ready (see ${fresh.logFile}); nothing else changed`
              : `the new instance ${toAddress(fresh)} was not ready within ${step.boundMs} ms (last answer: ${result.lastStatus || 'none'}); it was stopped, nothing else changed`,
            false,
          );
        }
        return `ready after ${result.ms} ms`;
      }
      case 'add': {
        const fresh = this.fresh!;
        await this.apply([...this.current, fresh]);
        this.current.push(fresh);
        fresh.inUpstream = true;
        await this.save();
        this.watchFrom = await fileSize(context.accessLog);
        return `${toAddress(fresh)} is in upstream ${context.upstream}`;
      }
      case 'watch': {
        const window = await this.watch(step, this.watchFrom);
        return `status codes ok (${window.distribution.total} requests)`;
      }
      case 'remove': {
        const rest = this.current.filter((i) => i !== this.old);
        await this.apply(rest);
        this.current.splice(this.current.indexOf(this.old), 1);
        this.old.inUpstream = false;
        this.reloadAt = Date.now();
        await this.save();
        return `${toAddress(this.old)} is out of upstream ${context.upstream}`;
      }
      case 'confirm-idle': {
        // Requests the old workers were still finishing are logged in the first moments; a request
        // logged later with a request time shorter than the time since the reload began after it.
        await sleep(CONFIRM_GRACE_MS);
        const windowStart = Date.now();
        const from = await fileSize(context.accessLog);
        const freshBelowMs = windowStart - this.reloadAt - NGINX_CLOCK_SLACK_MS;
        const window = await this.watch(step, from, freshBelowMs, step.waitMs! - CONFIRM_GRACE_MS);
        const reached = window.byAddress[toAddress(this.old)]?.fresh ?? 0;
        if (reached > 0) {
          const rolledBack = this.signalAt === 0;
          if (rolledBack) await this.rollBack();
          throw new Abort(
            `${toAddress(this.old)} still got ${reached} new request(s) after the reload`,
            rolledBack,
          );
        }
        return `no new requests reached ${toAddress(this.old)}`;
      }
      case 'signal': {
        // The recorded process while it still is the one proxyops started (never a stranger that took
        // its pid); otherwise the process listening on the old address, which is what nginx sent to.
        if ((await recordedStatus(this.old)) !== 'ours') {
          const found = await findListenerPid(this.old.port);
          const identity = found === undefined ? undefined : await readProcessIdentity(found);
          if (found === undefined || !identity)
            throw new Abort(`cannot find the process listening on ${toAddress(this.old)} to stop it`, false);
          Object.assign(this.old, { pid: found, identity });
        }
        const pid = this.old.pid!;
        // Taken before the signal: the drain measured from it is never shorter than the real one.
        const signalledAt = Date.now();
        // An old instance that exited meanwhile has nothing left to drain: the next step sees it gone.
        await signalRecorded(this.old, pool.deploy.stopSignal);
        this.signalLogOffset = await fileSize(context.accessLog);
        this.signalAt = Date.now();
        this.refusing = waitUntilRefusing(this.old.host, this.old.port, {
          boundMs: plan.drain.waitMs + pool.deploy.stopTimeout * 1000,
          pollMs: DRAIN_POLL_MS,
        }).then((ms) => (ms === undefined ? undefined : Date.now() - signalledAt));
        return `sent ${pool.deploy.stopSignal} to pid ${pid}`;
      }
      case 'drain-detect': {
        await this.countdown(step, step.waitMs!);
        // Readiness fails now, yet the instance must keep answering until the balancer took it out.
        const { text } = await readLogSince(context.accessLog, this.signalLogOffset);
        const served = summarizeLogWindow(context.kit, text).byAddress[toAddress(this.old)];
        return `${toAddress(this.old)} served ${served?.total ?? 0} request(s) (${served?.fivexx ?? 0} 5xx) while failing readiness`;
      }
      case 'wait-exit': {
        const pid = this.old.pid!;
        const left = Math.max(0, step.boundMs! - (Date.now() - this.signalAt));
        // Polling for refused connections began right at the signal: its time since the signal is the drain measured.
        const measuredMs = (await this.refusing!) ?? null;
        this.emit({
          type: 'drain',
          step: step.index,
          address: toAddress(this.old),
          computedMs: plan.drain.waitMs,
          measuredMs,
        });
        const forced = !(await waitForExit(pid, left));
        if (forced) await stopRecorded(this.old, 'SIGKILL', 2_000);
        const list = context.state.upstreams[context.upstream] ?? [];
        context.state.upstreams[context.upstream] = list.filter((i) => i !== this.old);
        await this.save();
        return forced
          ? `${toAddress(this.old)} did not exit within ${step.boundMs} ms: killed`
          : `${toAddress(this.old)} stopped accepting after ${measuredMs ?? '?'} ms and exited`;
      }
      case 'swap':
        throw new Error('a swap step belongs to a slot round');
    }
  }

  /** Reads the log from `from` for the step's wait, counting down; rolls back when the status codes regress. */
  private async watch(
    step: DeployStep,
    from: number,
    freshBelowMs = 0,
    windowMs = step.waitMs!,
  ): Promise<LogWindow> {
    const { context } = this;
    const deadline = Date.now() + windowMs;
    let text = '';
    let offset = from;
    let lastTick = 0;
    for (;;) {
      const chunk = await readLogSince(context.accessLog, offset);
      text += chunk.text;
      offset = chunk.end;
      const window = summarizeLogWindow(context.kit, text, freshBelowMs);
      const remaining = deadline - Date.now();
      const done = remaining <= 0 || this.interrupted.aborted;
      const fresh = this.fresh && this.fresh.inUpstream ? this.fresh : undefined;
      const mine = fresh ? window.byAddress[toAddress(fresh)] : undefined;
      // The new instance's own requests (by its address) are what the gates judge.
      const split = fresh ? splitByInstance(context.kit, text, { address: toAddress(fresh) }) : undefined;
      const minimum = done ? 1 : EARLY_DECISION_REQUESTS;
      const gate = split
        ? judgeNewInstance(this.before, split.mine, split.others, context.plan.gates, minimum)
        : judgeGates(this.before, window, context.plan.gates, minimum);
      // The new instance is watched whatever the request count: an exit or a 502 naming it ends the round.
      const exited = fresh?.pid !== undefined && (await recordedStatus(fresh)) !== 'ours';
      const failure = exited
        ? `the new instance ${toAddress(fresh!)} (pid ${fresh!.pid}) exited during the watch`
        : (mine?.badGateway ?? 0) > 0
          ? `nginx answered 502 for ${mine!.badGateway} request(s) to ${toAddress(fresh!)} during the watch`
          : gate?.text;
      if (done || failure) {
        this.emit(
          watchStatusEvent({
            step: step.index,
            before: this.before,
            window,
            failed: Boolean(failure),
            newInstance:
              fresh && split
                ? { address: toAddress(fresh), mine: split.mine, separated: split.separated }
                : undefined,
            gate,
          }),
        );
        if (failure) {
          await this.rollBack();
          throw new Abort(`${failure}: rolled back`, true);
        }
        return window;
      }
      if (Date.now() - lastTick >= COUNTDOWN_TICK_MS) {
        this.emit({ type: 'countdown', step: step.index, remainingMs: remaining });
        lastTick = Date.now();
      }
      await sleep(Math.min(WATCH_POLL_MS, remaining));
    }
  }

  /**
   * Back to the config before this round: the new instance out and stopped, the old one in again
   * unless it was already told to stop.
   */
  private async rollBack(): Promise<void> {
    const fresh = this.fresh;
    const servers = this.current.filter((i) => i !== fresh);
    const oldBack = this.signalAt === 0 && !servers.includes(this.old);
    if (oldBack) servers.push(this.old);
    await this.apply(servers);
    this.current.splice(0, this.current.length, ...servers);
    if (oldBack) this.old.inUpstream = true;
    if (fresh) {
      fresh.inUpstream = false;
      await this.cleanUp();
    }
    await this.save();
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
