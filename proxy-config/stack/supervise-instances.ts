import { join } from 'node:path';
import { toInstanceCommand } from '../core/deploy/instance-command.js';
import { toAddress } from '../core/deploy/plan-deploy.js';
import { mayRestart, RESTART_LIMIT } from '../core/deploy/restart-policy.js';
import { isProxyopsError } from '../core/errors.js';
import { isProcessAlive, recordedStatus, startInstance } from '../shell/process/instance-process.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import { removeSocketName } from '../shell/process/slot-socket.js';
import { startSlotInstance } from './start-slot-instance.js';
import { lockDeploys, readStackState, writeStackState, type InstanceRecord } from '../shell/stack-state.js';

/** A running supervision loop. */
export interface Supervisor {
  /** Stops the loop, after the check in progress (and any restart it makes) has finished. */
  stop(): Promise<void>;
}

/** How often `proxyops up` looks for instances that exited. */
export const SUPERVISE_INTERVAL_MS = 1_000;

/**
 * Restarts, on the same address and with the spec's command, every instance of the local stack's
 * record that should serve (in its upstream) but has exited; nginx routes around it meanwhile. Runs
 * under the deploy lock, so it never races a deploy or an apply, and skips a check while one runs.
 */
export function superviseInstances(
  target: string,
  say: (line: string) => void,
  intervalMs = SUPERVISE_INTERVAL_MS,
): Supervisor {
  const restartedAt = new Map<string, number[]>();
  const givenUp = new Set<string>();

  const exited = async (records: InstanceRecord[]) => {
    const found: InstanceRecord[] = [];
    for (const r of records)
      if (r.inUpstream && r.pid !== undefined && !givenUp.has(toAddress(r)) && (await hasExited(r)))
        found.push(r);
    return found;
  };

  const check = async () => {
    const seen = await readStackState(target);
    if (!seen?.stack || (await exited(Object.values(seen.upstreams).flat())).length === 0) return;
    let release: () => Promise<void>;
    try {
      release = await lockDeploys(target);
    } catch (error) {
      // A deploy or apply runs: it owns the instances now; look again at the next check.
      if (isProxyopsError(error) && error.code === 'DEPLOY_RUNNING') return;
      throw error;
    }
    try {
      const state = await readStackState(target);
      if (!state?.stack) return;
      const spec = await readSpecFile(state.stack.specPath);
      for (const [upstream, records] of Object.entries(state.upstreams)) {
        const pool = spec.upstreams[upstream];
        if (!pool?.deploy) continue;
        for (const record of await exited(records)) {
          const address = toAddress(record);
          const now = Date.now();
          const history = restartedAt.get(address) ?? [];
          if (!mayRestart(history, now)) {
            givenUp.add(address);
            say(
              `instance ${address} exited ${RESTART_LIMIT.count} times within ${RESTART_LIMIT.windowMs / 1000} s: not restarting it again; see ${record.logFile ?? 'its log'}`,
            );
            continue;
          }
          // Only restarts inside the window count, so older ones are dropped.
          restartedAt.set(address, [...history.filter((t) => now - t < RESTART_LIMIT.windowMs), now]);
          if (record.slot !== undefined) {
            // nginx tries the other slots meanwhile; the slot names the new process once it is ready.
            const started = await startSlotInstance({
              slot: record.slot,
              pool: { ...pool, deploy: pool.deploy },
              env: state.instanceEnv ?? {},
              logsDir: state.stack.logsDir,
            });
            say(`instance ${address} (pid ${record.pid}) exited: restarted as pid ${started.pid}`);
            await removeSocketName(record.socket);
            Object.assign(record, {
              pid: started.pid,
              socket: started.socket,
              logFile: started.logFile,
              identity: started.identity,
            });
            await writeStackState(target, state);
            continue;
          }
          const logFile = record.logFile ?? join(state.stack.logsDir, `instance-${record.port}.log`);
          const started = await startInstance(toInstanceCommand(pool.deploy, pool, record), {
            logFile,
            env: state.instanceEnv ?? {},
          });
          say(`instance ${address} (pid ${record.pid}) exited: restarted as pid ${started.pid}`);
          record.pid = started.pid;
          record.logFile = logFile;
          if (started.identity) record.identity = started.identity;
          await writeStackState(target, state);
        }
      }
    } finally {
      await release();
    }
  };

  let last: Promise<void> = Promise.resolve();
  // A failure that repeats every check (a spec made invalid by hand) is said once, until it changes.
  let lastFailure: string | undefined;
  const timer = setInterval(() => {
    last = last
      .then(check)
      .then(() => void (lastFailure = undefined))
      .catch((error: unknown) => {
        const failure = `supervising ${target}: ${error instanceof Error ? error.message : String(error)}`;
        if (failure !== lastFailure) say(failure);
        lastFailure = failure;
      });
  }, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await last;
    },
  };
}

/** Exited: its pid is gone or, when its identity was recorded, now names another process. */
async function hasExited(record: InstanceRecord): Promise<boolean> {
  if (!record.identity) return !(await isProcessAlive(record.pid!));
  return (await recordedStatus(record)) !== 'ours';
}
