import { inMadeDir } from '../shell/made-dir.js';
import { resolve } from 'node:path';
import type { StepReply, StepRequest } from '../core/apply/apply-steps-protocol.js';
import { diffVersions } from '../core/apply/config-change.js';
import {
  checkTargetLayout,
  pruneVersions,
  readVersionFiles,
  readVersionState,
} from '../shell/nginx/config-versions.js';
import { withTargetLock } from '../shell/nginx/target-lock.js';
import { KEEP_VERSIONS, outsideDeploys } from './apply-config.js';
import { readConfigHistory } from './config-history.js';
import { discardApply, prepareApply, switchApply, undoApply } from './apply-steps.js';
import { reconcileServers } from './reconcile-servers.js';

/** The next request of a session; undefined once the near end closed it. */
export type NextRequest = () => Promise<StepRequest | undefined>;

/**
 * The far side of an apply to several nginx hosts: answers the step requests for one target on this
 * machine, holding its locks from the first request to the last. A session that ends (stdin closed,
 * the ssh connection lost) before `finish` leaves the target as it was before. A failure is thrown
 * for the caller to answer with (the target is then as it was).
 */
export async function serveApplySteps(
  targetArg: string,
  first: StepRequest | undefined,
  next: NextRequest,
  reply: (answer: StepReply) => void,
): Promise<void> {
  const target = resolve(targetArg);
  await checkTargetLayout(target);
  if (first?.step === 'history') {
    reply({ ok: true, step: 'history', versions: await readConfigHistory(target) });
    return;
  }
  if (first?.step === 'diff') {
    const { current } = await readVersionState(target);
    const live = current ? await readVersionFiles(target, current) : {};
    const diff = diffVersions(live, first.files, current ?? 'empty');
    reply({ ok: true, step: 'diffed', diff, ...(current ? { live: current } : {}) });
    return;
  }
  if (first?.step !== 'prepare') return;
  await inMadeDir(target, () => outsideDeploys(target, () => serveOneChange(target, first, next, reply)));
}

/**
 * One config change under the target lock: prepare (already asked), then switch and finish, or
 * undo. The caller holds the deploy lock (an apply's own, or the deploy's that asks for the change).
 */
export function serveOneChange(
  target: string,
  first: Extract<StepRequest, { step: 'prepare' }>,
  next: NextRequest,
  reply: (answer: StepReply) => void,
): Promise<void> {
  return withTargetLock(target, async () => {
    // Servers a deploy recorded here that the spec would drop: refuse, as config apply does.
    await reconcileServers(first.spec, target, 'check', () => undefined);
    const prepared = await prepareApply(target, first);
    reply({
      ok: true,
      step: 'prepared',
      nextVersion: prepared.nextVersion,
      nginxRunning: prepared.masterPid !== undefined,
      ...(prepared.before.current ? { current: prepared.before.current } : {}),
      ...(prepared.unchanged ? { unchanged: prepared.unchanged } : {}),
    });
    const second = await next();
    if (second?.step !== 'switch') {
      await discardApply(prepared);
      if (second?.step === 'undo') reply({ ok: true, step: 'undone' });
      if (second?.step === 'finish') reply({ ok: true, step: 'finished' });
      return;
    }
    const switched = await switchApply(prepared, second.version);
    reply({
      ok: true,
      step: 'switched',
      version: switched.version,
      ...(prepared.before.current ? { previous: prepared.before.current } : {}),
      ...(switched.reload ? { reload: switched.reload } : {}),
    });
    const third = await next();
    if (third?.step === 'finish') {
      await pruneVersions(target, KEEP_VERSIONS);
      reply({ ok: true, step: 'finished' });
      return;
    }
    // Undo asked for, or the session ended without a word: back to what ran before.
    await undoApply(switched);
    reply({ ok: true, step: 'undone' });
  });
}
