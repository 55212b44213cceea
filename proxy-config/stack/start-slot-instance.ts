import { basename, join } from 'node:path';
import { toInstanceCommand } from '../core/deploy/instance-command.js';
import { ProxyopsError } from '../core/errors.js';
import type { UpstreamSpec } from '../core/spec/proxy-spec.js';
import { isProcessAlive, startInstance, stopInstance } from '../shell/process/instance-process.js';
import { freshSocketPath, pointSlotAt, probeSocket, removeSocketName } from '../shell/process/slot-socket.js';
import type { InstanceRecord } from '../shell/stack-state.js';
import { waitUntilReady } from '../shell/process/wait-until-ready.js';

/**
 * Starts the instance of an upstream slot (for `up` and its supervisor): on a fresh socket, waits
 * until it is ready, then renames it over the slot path. A process that is not ready is stopped and
 * INSTANCE_NOT_READY thrown; the slot is left as it was.
 */
export async function startSlotInstance(options: {
  slot: string;
  pool: UpstreamSpec & { deploy: NonNullable<UpstreamSpec['deploy']> };
  env: Record<string, string>;
  logsDir: string;
  extraArgs?: string[];
  /** Called once the process runs, before it is ready (so a caller can record its pid at once). */
  started?: (record: InstanceRecord) => Promise<void>;
}): Promise<InstanceRecord> {
  const { slot, pool } = options;
  const socket = freshSocketPath(slot);
  const command = toInstanceCommand(pool.deploy, pool, { host: '', port: 0, socket });
  command.args.push(...(options.extraArgs ?? []));
  const logFile = join(options.logsDir, `instance-${basename(socket, '.sock')}.log`);
  const { pid, identity } = await startInstance(command, { logFile, env: options.env });
  const record: InstanceRecord = {
    host: '',
    port: 0,
    slot,
    socket,
    pid,
    logFile,
    inUpstream: true,
    ...(identity ? { identity } : {}),
  };
  await options.started?.(record);
  const ready = await waitUntilReady(`unix:${socket}${pool.healthCheck.readinessPath}`, {
    boundMs: pool.deploy.readyTimeout * 1000,
    pollMs: 100,
    isAlive: () => isProcessAlive(pid),
    probe: () => probeSocket(socket, pool.healthCheck.readinessPath),
  });
  if (!ready.ready) {
    await stopInstance(pid, 'SIGINT', pool.deploy.stopTimeout * 1000);
    await removeSocketName(socket);
    throw new ProxyopsError(
      'INSTANCE_NOT_READY',
      `the instance for ${slot} ${ready.reason === 'exited' ? 'exited' : 'was not ready in time'}; see ${logFile}`,
    );
  }
  await pointSlotAt(slot, socket);
  return record;
}
