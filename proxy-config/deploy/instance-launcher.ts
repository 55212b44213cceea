import { join } from 'node:path';
import { fillHook, formatArgv, toInstanceCommand } from '../core/deploy/instance-command.js';
import { toAddress } from '../core/deploy/plan-deploy.js';
import { ProxyopsError } from '../core/errors.js';
import type { DeployContext } from './deploy-context.js';
import { findListenerPid } from '../shell/process/find-listener-pid.js';
import {
  recordedStatus,
  signalRecorded,
  startInstance,
  stopRecorded,
  waitForExit,
} from '../shell/process/instance-process.js';
import { readProcessIdentity } from '../shell/process/process-identity.js';
import { describeHookRun, runHook } from '../shell/process/run-hook.js';
import type { InstanceRecord } from '../shell/stack-state.js';
import { strangerOrGone } from './switch-by-slot.js';
import type { NewPlace, TrafficSwitch } from './traffic-switch.js';

/** How an old instance was told to leave. */
export interface Leaving {
  outcome: string;
  /** Whether it will stop accepting connections (false: left running, idle, for its owner to stop). */
  leaves: boolean;
  /** Settles once the telling is over (a stop hook returned): a failure's reason, or undefined. */
  done: Promise<string | undefined>;
}

/**
 * Who starts and stops instances: proxyops itself (`deploy.command`, its own child, known by pid and
 * identity) or the spec's lifecycle hooks (an instance someone else runs, known by its address and
 * readiness only).
 */
export interface InstanceLauncher {
  /** Starts the new instance at `place`: what to record of it and how the outcome says it. */
  start(place: NewPlace): Promise<{ record: InstanceRecord; outcome: string }>;
  /** True once the instance is known to have exited; never known of an instance that is not our child. */
  hasExited(instance: InstanceRecord): Promise<boolean>;
  /** Stops a new instance of this round; `serving` when traffic reached it (then gracefully). */
  stopNew(instance: InstanceRecord, serving: boolean): Promise<void>;
  /** Tells the old instance to leave (its drain). */
  stopOld(old: InstanceRecord): Promise<Leaving>;
  /** Waits up to `boundMs` for the old instance to exit, killing our own child past it: how it went. */
  waitGone(old: InstanceRecord, boundMs: number): Promise<'exited' | 'killed' | 'unknown'>;
}

/** The hooks' log: one file beside the instances' logs. */
function hookLog(context: DeployContext): string {
  return join(context.logsDir, 'hooks.log');
}

/** proxyops runs each new instance as its child (`deploy.command`) and signals the ones it started. */
export function childLauncher(context: DeployContext, traffic: TrafficSwitch): InstanceLauncher {
  const { pool } = context;
  const stopMs = pool.deploy.stopTimeout * 1000;
  return {
    async start(place) {
      const logFile = join(context.logsDir, place.logName);
      const command = toInstanceCommand(pool.deploy, pool, {
        ...place.address,
        version: context.plan.version,
        handOver: traffic.path === 'alternate',
      });
      const instance = await startInstance(command, {
        logFile,
        env: context.instanceEnv,
        stopSignal: pool.deploy.stopSignal,
      });
      return {
        record: {
          ...place.address,
          pid: instance.pid,
          logFile,
          inUpstream: false,
          ...(instance.identity ? { identity: instance.identity } : {}),
        },
        outcome: `started ${place.where} (pid ${instance.pid}, log ${logFile})`,
      };
    },
    hasExited: async (instance) => instance.pid !== undefined && (await recordedStatus(instance)) !== 'ours',
    async stopNew(instance, serving) {
      // Nothing routes to one that never served: SIGINT skips the drain wait of `proxyops api`.
      await stopRecorded(instance, serving ? pool.deploy.stopSignal : 'SIGINT', stopMs);
    },
    async stopOld(old) {
      // The recorded process while it still is the one proxyops started, never a stranger that took
      // its pid; on TCP, otherwise the process listening on the old address (what nginx sends to).
      if (traffic.tcp && (await recordedStatus(old)) !== 'ours') {
        const found = await findListenerPid(old.port);
        const identity = found === undefined ? undefined : await readProcessIdentity(found);
        if (found === undefined || !identity)
          throw new ProxyopsError(
            'INSTANCE_NOT_FOUND',
            `cannot find the process listening on ${toAddress(old)} to stop it`,
          );
        Object.assign(old, { pid: found, identity });
      }
      const sent = await signalRecorded(old, pool.deploy.stopSignal);
      return {
        outcome:
          sent === 'sent'
            ? `sent ${pool.deploy.stopSignal} to pid ${old.pid}`
            : `the old process ${strangerOrGone(old.pid, sent)}`,
        leaves: true,
        done: Promise.resolve(undefined),
      };
    },
    async waitGone(old, boundMs) {
      // Only the process proxyops started is waited for (and killed past the bound), never a stranger.
      if ((await recordedStatus(old)) !== 'ours') return 'exited';
      if (await waitForExit(old.pid!, boundMs)) return 'exited';
      await stopRecorded(old, 'SIGKILL', 2_000);
      return 'killed';
    },
  };
}

/**
 * The spec's lifecycle hooks start and stop instances (systemd, supervisord, Docker, a script):
 * proxyops never signals a pid it did not start, it runs the hooks with the instance's address.
 */
export function hookLauncher(context: DeployContext): InstanceLauncher {
  const { pool, plan } = context;
  const launch: { start?: string[]; stop?: string[] } = plan.launch.kind === 'hooks' ? plan.launch : {};
  const boundMs = pool.deploy.readyTimeout * 1000;
  const stopBoundMs = plan.drain.waitMs + pool.deploy.stopTimeout * 1000;
  const argvFor = (argv: string[], at: InstanceRecord) =>
    fillHook(argv, { host: at.host, port: at.port, socket: at.socket, version: plan.version });
  const run = (argv: string[], at: InstanceRecord, bound: number) => {
    const on = context.hostOf(at);
    return runHook(argvFor(argv, at), { boundMs: bound, logFile: hookLog(context), ...(on ? { on } : {}) });
  };
  return {
    async start(place) {
      const record: InstanceRecord = { ...place.address, logFile: hookLog(context), inUpstream: false };
      if (!launch.start)
        throw new ProxyopsError(
          'SPEC_INVALID',
          `upstreams.${context.upstream}.deploy has no start hook: start the new instance yourself and hand over with --replace OLD --with NEW`,
        );
      const ran = await run(launch.start, record, boundMs);
      if (ran.exitCode !== 0) {
        // Whatever it started half-way goes again (its own stop hook, never the old instance's).
        if (launch.stop) await run(launch.stop, record, stopBoundMs);
        throw new ProxyopsError(
          'START_HOOK_FAILED',
          `the start hook for ${place.where} ${describeHookRun(ran)} (see ${hookLog(context)}); nothing else changed`,
        );
      }
      return {
        record,
        outcome: `started ${place.where} by the start hook in ${ran.ms} ms: ${formatArgv(argvFor(launch.start, record))}`,
      };
    },
    hasExited: () => Promise.resolve(false),
    async stopNew(instance) {
      if (launch.stop) await run(launch.stop, instance, stopBoundMs);
    },
    stopOld(old) {
      if (!launch.stop)
        return Promise.resolve({
          outcome: `no stop hook: ${toAddress(old)} is left running, idle, and may be stopped`,
          leaves: false,
          done: Promise.resolve(undefined),
        });
      const argv = argvFor(launch.stop, old);
      const done = run(launch.stop, old, stopBoundMs).then((ran) =>
        ran.exitCode === 0
          ? undefined
          : `the stop hook for ${toAddress(old)} ${describeHookRun(ran)} (see ${hookLog(context)})`,
      );
      return Promise.resolve({ outcome: `running the stop hook: ${formatArgv(argv)}`, leaves: true, done });
    },
    waitGone: () => Promise.resolve('unknown'),
  };
}
