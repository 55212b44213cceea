import { basename } from 'node:path';
import { instanceName } from '../core/deploy/instance-command.js';
import { signalRecorded } from '../shell/process/instance-process.js';
import { freshSocketPath, pointSlotAt, probeSocket, removeSocketName } from '../shell/process/slot-socket.js';
import type { InstanceRecord } from '../shell/stack-state.js';
import type { TrafficSwitch } from './traffic-switch.js';

/** Signals of the slot protocol (`proxyops api --socket`): answer with Connection: close, and back to keep-alive. */
export const RETIRE_SIGNAL = 'SIGUSR2';
export const RESUME_SIGNAL = 'SIGHUP';

/**
 * Traffic moves by a rename over the upstream slot: no config change, no reload. The new process
 * listens on a fresh socket beside the slot; the rename points nginx's next connection at it and the
 * old process is retired (it closes each connection after its next answer, so nginx's kept-alive
 * connections move over). Back: the old socket renamed over the slot again, the old process resumed.
 */
export const slotSwitch: TrafficSwitch = {
  path: 'slot',
  tcp: false,
  place(old) {
    const socket = freshSocketPath(old.slot!);
    return Promise.resolve({
      address: { host: old.host, port: old.port, slot: old.slot!, socket },
      logName: `instance-${basename(socket, '.sock')}.log`,
      where: `on ${socket}`,
    });
  },
  probe: (instance, path) => probeSocket(instance.socket!, path),
  async switchIn(fresh, old) {
    await pointSlotAt(old.slot!, fresh.socket!);
    const retired = await signalRecorded(old, RETIRE_SIGNAL);
    return {
      oldOut: true,
      outcome: `${old.slot} now names pid ${fresh.pid}; ${
        retired === 'sent'
          ? `pid ${old.pid} closes each connection after its next answer`
          : `the old process ${strangerOrGone(old.pid, retired)}`
      }`,
    };
  },
  async switchBack(_fresh, old) {
    await pointSlotAt(old.slot!, old.socket!);
    await signalRecorded(old, RESUME_SIGNAL);
  },
  takeOut() {
    return Promise.reject(new Error('a slot round takes no instance out of the upstream'));
  },
  // Behind a slot `$upstream_addr` names the slot: the new process is told apart by the name it logs.
  key: (instance) => ({ instance: instanceName(instance) }),
  release: (instance: InstanceRecord) => removeSocketName(instance.socket),
};

/** Why an old process was not signalled: it exited, or its pid now belongs to another process. */
export function strangerOrGone(pid: number | undefined, status: 'gone' | 'stranger'): string {
  return status === 'gone'
    ? `(pid ${pid ?? '?'}) has already exited`
    : `(pid ${pid}) is not the one proxyops started any more (its start time or boot differ): not signalled`;
}
