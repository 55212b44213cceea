import { setTimeout as sleep } from 'node:timers/promises';
import { isProxyopsError } from '../core/errors.js';
import { readDeployProgress } from '../shell/deploy-progress.js';
import { recordedStatus, signalRecorded, stopRecorded } from '../shell/process/instance-process.js';
import { lockDeploys } from '../shell/stack-state.js';

/**
 * Longest wait for a deploy to put its round back: the step under way finishes first, and the
 * longest ones (readiness, an old instance's exit, stopping the new one) are bounded by the spec's
 * timeouts, far below this.
 */
export const DEPLOY_PUT_BACK_MS = 120_000;
const POLL_MS = 100;

/**
 * Takes the deploy lock of `target` so no deploy runs (or starts) while the stack is stopped. A
 * deploy under way is asked to put its round back (SIGINT, as Ctrl-C; SIGCONT too, should it be
 * suspended) and waited for: it finishes the step under way, rolls the round back, records the
 * state and exits. It is signalled only while its progress file still names this very process
 * (start time and boot). One that does not end within `boundMs` is killed; what it had
 * started is in the state, which the caller stops. Returns the release of the lock.
 */
export async function holdDeploys(
  target: string,
  say: (line: string) => void,
  boundMs = DEPLOY_PUT_BACK_MS,
): Promise<() => Promise<void>> {
  const deadline = Date.now() + boundMs;
  let asked: number | undefined;
  for (;;) {
    try {
      return await lockDeploys(target);
    } catch (error) {
      if (!isProxyopsError(error) || error.code !== 'DEPLOY_RUNNING') throw error;
    }
    const progress = await readDeployProgress(target);
    if (progress && asked !== progress.pid && (await recordedStatus(progress)) === 'ours') {
      say(
        `a deploy (pid ${progress.pid}) is at step ${progress.step} (${progress.kind}): asking it to put its round back`,
      );
      await signalRecorded(progress, 'SIGINT');
      await signalRecorded(progress, 'SIGCONT');
      asked = progress.pid;
    }
    if (Date.now() >= deadline) {
      if (progress && (await stopRecorded(progress, 'SIGKILL', POLL_MS * 10)) !== undefined)
        say(`the deploy (pid ${progress.pid}) did not end within ${boundMs / 1000} s: killed`);
      // A killed holder's lock is taken over; one held by another live process is left to it.
      const release = await lockDeploys(target).catch(() => undefined);
      if (!release) say(`the deploy lock of ${target} is still held: stopping the stack anyway`);
      return release ?? (() => Promise.resolve());
    }
    await sleep(POLL_MS);
  }
}
