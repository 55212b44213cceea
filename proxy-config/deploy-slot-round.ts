import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DeployEvent } from './core/deploy/deploy-events.js';
import { instanceName, toInstanceCommand } from './core/deploy/instance-command.js';
import { splitByInstance, summarizeLogWindow, type LogWindow } from './core/deploy/log-window.js';
import { toAddress, type DeployStep } from './core/deploy/plan-deploy.js';
import { EARLY_DECISION_REQUESTS } from './core/deploy/status-watch.js';
import { watchStatusEvent } from './core/deploy/status-event.js';
import { judgeNewInstance } from './core/deploy/watch-gates.js';
import type { DeployContext } from './deploy-context.js';
import { Abort, UNCONTROLLED, type RoundControl } from './deploy-round.js';
import {
  isProcessAlive,
  recordedStatus,
  signalRecorded,
  startInstance,
  stopRecorded,
  waitForExit,
} from './shell/instance-process.js';
import { fileSize } from './shell/read-file-range.js';
import { readLogSince } from './shell/read-log-since.js';
import { freshSocketPath, pointSlotAt, probeSocket, removeSocketName } from './shell/slot-socket.js';
import type { InstanceRecord } from './shell/stack-state.js';
import { waitUntilReady } from './shell/wait-until-ready.js';

const COUNTDOWN_TICK_MS = 1_000;
const WATCH_POLL_MS = 250;
const EXIT_SETTLE_MS = 200;
/** Signals of the slot protocol (`proxyops api --socket`): answer with Connection: close, and back to keep-alive. */
export const RETIRE_SIGNAL = 'SIGUSR2';
export const RESUME_SIGNAL = 'SIGHUP';

/**
 * Runs the steps of one round that replaces the process behind an upstream slot: no config change,
 * no reload. The new process listens on a fresh socket; once ready, its socket is renamed over the
 * slot path and the old process is retired (it closes each connection after its next answer, so
 * nginx's kept-alive connections move over); after the watch the old process stops accepting and
 * exits once nginx closed its connections. A failed watch renames the old socket back.
 */
export class SlotRoundRunner {
  stepIndex = 0;
  private fresh: InstanceRecord | undefined;
  private swapped = false;
  private signalled = false;
  private watchFrom = 0;

  constructor(
    private readonly context: DeployContext,
    private readonly emit: (event: DeployEvent) => void,
    private readonly before: LogWindow,
    private readonly current: InstanceRecord[],
    private readonly old: InstanceRecord & { slot: string },
    private readonly save: () => Promise<void>,
    private readonly control: RoundControl = UNCONTROLLED,
  ) {}

  private get interrupted(): AbortSignal {
    return this.control.interrupted;
  }

  async run(step: DeployStep): Promise<void> {
    if (this.interrupted.aborted && !this.signalled) {
      this.stepIndex = step.index;
      const swapped = this.swapped;
      if (swapped) await this.rollBack();
      else await this.cleanUp();
      throw new Abort(`interrupted before step ${step.index} (${step.kind})`, swapped);
    }
    this.stepIndex = step.index;
    this.emit({ type: 'step-start', step });
    await this.control.atStep(step);
    const began = Date.now();
    const outcome = await this.perform(step);
    this.emit({ type: 'step-done', step, ms: Date.now() - began, outcome });
  }

  /** Stops a new process that is not behind the slot and forgets it. */
  async cleanUp(): Promise<void> {
    const fresh = this.fresh;
    if (!fresh || this.swapped || fresh.pid === undefined) return;
    await stopRecorded(fresh, 'SIGINT', this.context.pool.deploy.stopTimeout * 1000);
    await removeSocketName(fresh.socket);
    this.fresh = undefined;
    const list = this.context.state.upstreams[this.context.upstream] ?? [];
    this.context.state.upstreams[this.context.upstream] = list.filter((i) => i !== fresh);
    await this.save();
  }

  private async perform(step: DeployStep): Promise<string> {
    const { context, old } = this;
    const { pool, plan } = context;
    switch (step.kind) {
      case 'start': {
        const socket = freshSocketPath(old.slot);
        const logFile = join(context.logsDir, `instance-${basename(socket, '.sock')}.log`);
        const instance = await startInstance(
          toInstanceCommand(pool.deploy, pool, { host: old.host, port: old.port, socket }),
          { logFile, env: context.instanceEnv, stopSignal: pool.deploy.stopSignal },
        );
        this.fresh = {
          host: old.host,
          port: old.port,
          slot: old.slot,
          socket,
          pid: instance.pid,
          logFile,
          inUpstream: false,
          ...(instance.identity ? { identity: instance.identity } : {}),
        };
        context.state.upstreams[context.upstream] = [
          ...(context.state.upstreams[context.upstream] ?? []),
          this.fresh,
        ];
        await this.save();
        return `started on ${socket} (pid ${instance.pid}, log ${logFile})`;
      }
      case 'wait-ready': {
        const fresh = this.fresh!;
        const result = await waitUntilReady(`unix:${fresh.socket}${plan.readinessPath}`, {
          boundMs: step.boundMs!,
          pollMs: Math.min(250, Math.max(20, Math.round(pool.healthCheck.interval * 250))),
          isAlive: () => isProcessAlive(fresh.pid!),
          probe: () => probeSocket(fresh.socket!, plan.readinessPath),
        });
        if (!result.ready) {
          await this.cleanUp();
          throw new Abort(
            result.reason === 'exited'
              ? `the new instance (pid ${fresh.pid}) exited before it was ready (see ${fresh.logFile}); nothing else changed`
              : `the new instance on ${fresh.socket} was not ready within ${step.boundMs} ms (last answer: ${result.lastStatus || 'none'}); it was stopped, nothing else changed`,
            false,
          );
        }
        return `ready after ${result.ms} ms`;
      }
      case 'swap': {
        const fresh = this.fresh!;
        await pointSlotAt(old.slot, fresh.socket!);
        this.swapped = true;
        this.current.splice(this.current.indexOf(old), 1, fresh);
        fresh.inUpstream = true;
        old.inUpstream = false;
        await this.save();
        const retired = await signalRecorded(old, RETIRE_SIGNAL);
        this.watchFrom = await fileSize(context.accessLog);
        return `${old.slot} now names pid ${fresh.pid}; ${
          retired === 'sent'
            ? `pid ${old.pid} closes each connection after its next answer`
            : `the old process ${strangerOrGone(old.pid, retired)}`
        }`;
      }
      case 'watch': {
        const total = await this.watch(step);
        return `new process alive and ready, status codes ok (${total} requests)`;
      }
      case 'signal': {
        this.signalled = true;
        const sent = await signalRecorded(old, pool.deploy.stopSignal);
        return sent === 'sent'
          ? `sent ${pool.deploy.stopSignal} to pid ${old.pid}`
          : `the old process ${strangerOrGone(old.pid, sent)}`;
      }
      case 'wait-exit': {
        const started = Date.now();
        const pid = old.pid;
        // Only the process proxyops started is waited for (and killed past the bound), never a stranger.
        const ours = (await recordedStatus(old)) === 'ours';
        const forced = ours && !(await waitForExit(pid!, step.boundMs!));
        if (forced) await stopRecorded(old, 'SIGKILL', 2_000);
        await removeSocketName(old.socket);
        const list = context.state.upstreams[context.upstream] ?? [];
        context.state.upstreams[context.upstream] = list.filter((i) => i !== old);
        await this.save();
        return forced
          ? `pid ${pid} did not exit within ${step.boundMs} ms: killed`
          : `pid ${pid ?? '?'} exited ${Date.now() - started} ms after the signal`;
      }
      default:
        throw new Error(`step ${step.kind} has no place in a slot round`);
    }
  }

  /**
   * Watches the new process for the step's wait: it must stay alive and ready, no proxy-generated
   * 502 may name the slot, and the status codes must not regress; any of these rolls the round back
   * whatever the request count. Returns the requests seen.
   */
  private async watch(step: DeployStep): Promise<number> {
    const { context, old } = this;
    const fresh = this.fresh!;
    const deadline = Date.now() + step.waitMs!;
    let text = '';
    let offset = this.watchFrom;
    let lastTick = 0;
    for (;;) {
      const chunk = await readLogSince(context.accessLog, offset);
      text += chunk.text;
      offset = chunk.end;
      const window = summarizeLogWindow(context.kit, text);
      // Behind the slot `$upstream_addr` names the slot: the new process is told apart by the name it logs.
      const name = instanceName(fresh);
      const { mine, others, separated } = splitByInstance(context.kit, text, { instance: name });
      const remaining = deadline - Date.now();
      const done = remaining <= 0 || this.interrupted.aborted;
      const ready = (await probeSocket(fresh.socket!, context.plan.readinessPath)) === 200;
      // Looked at after the probe (and a moment later when it failed: a killed process refuses
      // connections before it is seen gone), so an exit is reported as the exit it is.
      if (!ready) await sleep(EXIT_SETTLE_MS);
      const alive = (await recordedStatus(fresh)) === 'ours';
      const proxy502 = window.byAddress[toAddress(old)]?.badGateway ?? 0;
      const minimum = done ? 1 : EARLY_DECISION_REQUESTS;
      const gate = judgeNewInstance(this.before, mine, others, context.plan.gates, minimum);
      const failure = !alive
        ? `the new instance (pid ${fresh.pid}) exited during the watch (see ${fresh.logFile})`
        : !ready
          ? `the new instance (pid ${fresh.pid}) failed its readiness check during the watch`
          : proxy502 > 0
            ? `nginx answered 502 for ${proxy502} request(s) to ${toAddress(old)} during the watch`
            : gate?.text;
      if (done || failure) {
        this.emit(
          watchStatusEvent({
            step: step.index,
            before: this.before,
            window,
            failed: Boolean(failure),
            newInstance: { address: toAddress(fresh), instance: name, mine, separated },
            gate,
          }),
        );
        if (failure) {
          await this.rollBack();
          throw new Abort(`${failure}: rolled back (${old.slot} names pid ${old.pid} again)`, true);
        }
        return window.distribution.total;
      }
      if (Date.now() - lastTick >= COUNTDOWN_TICK_MS) {
        this.emit({ type: 'countdown', step: step.index, remainingMs: remaining });
        lastTick = Date.now();
      }
      await sleep(Math.min(WATCH_POLL_MS, remaining));
    }
  }

  /** Points the slot back at the old process (told to keep connections alive again) and stops the new one. */
  private async rollBack(): Promise<void> {
    const { context, old } = this;
    const fresh = this.fresh!;
    await pointSlotAt(old.slot, old.socket!);
    await signalRecorded(old, RESUME_SIGNAL);
    this.current.splice(this.current.indexOf(fresh), 1, old);
    old.inUpstream = true;
    fresh.inUpstream = false;
    this.swapped = false;
    await this.save();
    await stopRecorded(fresh, context.pool.deploy.stopSignal, context.pool.deploy.stopTimeout * 1000);
    await removeSocketName(fresh.socket);
    this.fresh = undefined;
    const list = context.state.upstreams[context.upstream] ?? [];
    context.state.upstreams[context.upstream] = list.filter((i) => i !== fresh);
    await this.save();
  }
}

/** Why an old process was not signalled: it exited, or its pid now belongs to another process. */
export function strangerOrGone(pid: number | undefined, status: 'gone' | 'stranger'): string {
  return status === 'gone'
    ? `(pid ${pid ?? '?'}) has already exited`
    : `(pid ${pid}) is not the one proxyops started any more (its start time or boot differ): not signalled`;
}
