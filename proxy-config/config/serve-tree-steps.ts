import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { StepReply, StepRequest } from '../core/apply/apply-steps-protocol.js';
import { ProxyopsError } from '../core/errors.js';
import { readVersionState, versionDir } from '../shell/nginx/config-versions.js';
import { assertMasterRunsConf } from '../shell/nginx/master-runs-target.js';
import { readLiveMasterPid } from '../shell/nginx/nginx-master.js';
import { inMadeDir } from '../shell/made-dir.js';
import { withTargetLock } from '../shell/nginx/target-lock.js';
import { readTreeHistory } from '../shell/nginx/tree-history.js';
import { writeAdoptionFile } from '../shell/nginx/adoption-file.js';
import { recordTreeChange, refuseRenderedTarget } from './apply-tree-change.js';
import { outsideDeploys } from './apply-config.js';
import { diffTreeChange } from './adopt-nginx.js';
import { planTreeSource } from './plan-tree-source.js';
import { refuseDroppingServing } from './serving-check.js';
import type { NextRequest } from './serve-apply-steps.js';
import { commitTreeChange, prepareTreeChange, undoTreeChange } from './tree-change-steps.js';
import { refuseUnloaded } from './tree-master-check.js';

/** The requests that open a session on a hand-written tree. */
export type TreeStepRequest =
  Extract<StepRequest, { step: 'prepare-tree' | 'diff-tree' }> | { step: 'history'; tree: true };

/** Whether a session's first request is about a hand-written tree (else a rendered config's). */
export function isTreeRequest(request: StepRequest | undefined): request is TreeStepRequest {
  return (
    request?.step === 'prepare-tree' ||
    request?.step === 'diff-tree' ||
    (request?.step === 'history' && request.tree === true)
  );
}

/**
 * The far side of a change to the hand-written tree of a spec with `nginx.conf`, on one host: plans
 * the change from this host's own files, tests it (nginx -t on a staged copy), then writes it in
 * place and reloads when asked to switch, under the state directory's locks until the session
 * ends. A session that ends before `finish` puts every byte back and forgets the version. One that
 * ends (`ended`) while the change is planned or tested stops that work there: nothing was written,
 * the locks go, and nobody waits for the answer.
 */
export async function serveTreeSteps(
  stateArg: string,
  first: TreeStepRequest,
  next: NextRequest,
  reply: (answer: StepReply) => void,
  ended: AbortSignal,
): Promise<void> {
  const state = resolve(stateArg);
  if (first.step === 'history') {
    reply({ ok: true, step: 'tree-history', versions: await readTreeHistory(state) });
    return;
  }
  if (first.step === 'diff-tree') {
    const planned = await untilSessionEnds(ended, planTreeSource(state, first.spec, first.source));
    const { current } = await readVersionState(state).catch(() => ({ current: undefined }));
    reply({
      ok: true,
      step: 'diffed',
      diff: diffTreeChange(planned.change),
      ...(current ? { live: current } : {}),
    });
    return;
  }
  await refuseRenderedTarget(state);
  // A refused run, or one with nothing to write, leaves no directory it made (a wrong target).
  await inMadeDir(state, () =>
    outsideDeploys(state, () =>
      withTargetLock(state, async () => {
        const planned = await untilSessionEnds(ended, planTreeSource(state, first.spec, first.source));
        // The far side is sent the spec, not its path: the commands the refusal names say SPEC.
        await untilSessionEnds(
          ended,
          refuseDroppingServing(state, planned.change, { path: 'SPEC', upstreams: first.spec.upstreams }),
        );
        const { versions } = await readVersionState(state);
        const last = versions.at(-1);
        const nextVersion = Number(last?.slice(1) ?? 0) + 1;
        if (planned.change.files.length === 0) {
          // As on one host: "unchanged" only when the master behind the pid file (the one a change
          // here would reload, as prepareTreeChange checks it) loaded the tree as it is on disk.
          const pid = await readLiveMasterPid(planned.pidFile);
          const master =
            pid === undefined
              ? undefined
              : await assertMasterRunsConf(pid, planned.change.conf, planned.pidFile);
          if (master) await refuseUnloaded(master, planned.change.conf);
          const nginxRunning = master !== undefined;
          reply({ ok: true, step: 'prepared', nextVersion, unchanged: last ?? 'its tree', nginxRunning });
          const second = await next();
          if (second?.step === 'finish' || second?.step === 'undo')
            reply({ ok: true, step: second.step === 'finish' ? 'finished' : 'undone' });
          return;
        }
        // Not raced: nginx -t is stopped and its staged copy removed before the locks go.
        const prepared = await prepareTreeChange(planned.change, planned.pidFile, ended);
        reply({
          ok: true,
          step: 'prepared',
          nextVersion,
          nginxRunning: prepared.masterPid !== undefined,
          ...(last ? { current: last } : {}),
        });
        const second = await next();
        if (second?.step !== 'switch') {
          if (second?.step === 'undo') reply({ ok: true, step: 'undone' });
          if (second?.step === 'finish') reply({ ok: true, step: 'finished' });
          return;
        }
        const { reload } = await commitTreeChange(prepared);
        let version: string;
        try {
          version = await recordTreeChange(
            state,
            planned.kind,
            first.appliedAt,
            planned,
            prepared,
            second.version,
          );
        } catch (error) {
          await undoTreeChange(prepared);
          if (planned.adoption) await writeAdoptionFile(state, planned.adoption.before);
          throw error;
        }
        reply({
          ok: true,
          step: 'switched',
          version,
          ...(last ? { previous: last } : {}),
          ...(reload ? { reload } : {}),
        });
        const third = await next();
        if (third?.step === 'finish') {
          reply({ ok: true, step: 'finished' });
          return;
        }
        // Undo asked for, or the session ended without a word: every byte back, and no version of it.
        await undoTreeChange(prepared);
        await rm(versionDir(state, version), { recursive: true, force: true });
        if (planned.adoption) await writeAdoptionFile(state, planned.adoption.before);
        reply({ ok: true, step: 'undone' });
      }),
    ),
  );
}

/**
 * `work` (reading and planning: nothing written, nothing to clean up), or REMOTE_SESSION_ENDED as
 * soon as the session ends, so that the locks go at once; the read left running ends with the
 * process (remote steps exits once its session has ended). Writing and putting back are never cut
 * short.
 */
function untilSessionEnds<T>(ended: AbortSignal, work: Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const stop = () =>
      reject(new ProxyopsError('REMOTE_SESSION_ENDED', 'the session ended during the step; nothing changed'));
    if (ended.aborted) stop();
    else ended.addEventListener('abort', stop, { once: true });
    work.then(resolve, reject).finally(() => ended.removeEventListener('abort', stop));
  });
}
