import { inMadeDir } from '../shell/made-dir.js';
import { resolve } from 'node:path';
import type { RecordedState, StepReply, StepRequest } from '../core/apply/apply-steps-protocol.js';
import { ProxyopsError, isProxyopsError } from '../core/errors.js';
import { serveOneChange, type NextRequest } from '../config/serve-apply-steps.js';
import { checkTargetLayout, readVersionState } from '../shell/nginx/config-versions.js';
import { readDeployProgress, removeDeployProgress, writeDeployProgress } from '../shell/deploy-progress.js';
import { fileSize } from '../shell/logs/read-file-range.js';
import { readLastLines } from '../shell/logs/read-log-since.js';
import { followedLog, type FollowedLog } from './access-logs.js';
import { isAlive } from '../shell/process/proc-process-tree.js';
import { isRefusable, type RefusedAddress } from '../core/deploy/refusal.js';
import {
  allowConnects,
  refusalSupport,
  refuseConnects,
  type RefusalSupport,
} from '../shell/nginx/refuse-connects.js';
import { readCurrentMain, readLivePicture } from './live-nginx-check.js';
import { readAdoptedNginx, readAdoptionStanding } from './adopted-nginx.js';
import { readLiveAccessLog } from './live-access-log.js';
import { driftError } from '../core/adopt/managed-lines.js';
import { withLoadCommand } from '../shell/nginx/drift-load-command.js';
import { withBlockParams } from '../core/deploy/block-server-params.js';
import { lockDeploys, readStackState, writeStackState, type StackState } from '../shell/stack-state.js';

/**
 * The far side of a deploy across hosts, on one nginx host: `status` alone, or `hold` (the target's
 * deploy lock, kept until the session ends: the deploy's part of the fleet-wide lock) followed by
 * what the deploy needs from this host: its access log, its recorded state, config changes. A
 * failed request is answered and the session goes on, so the deploy can still put things back.
 * `hold` with `look` (deploy plan) takes no lock and answers only what the look before acting reads.
 */
export async function serveDeploySteps(
  targetArg: string,
  first: Extract<StepRequest, { step: 'hold' | 'status' }>,
  next: NextRequest,
  reply: (answer: StepReply) => void,
): Promise<void> {
  const target = resolve(targetArg);
  await checkTargetLayout(target);
  if (first.step === 'status') {
    reply({ ok: true, step: 'status', ...(await readStatus(target)) });
    return;
  }
  if (first.look === true) return serveHold(target, first, next, reply);
  // A deploy refused here (a wrong target, an upstream not adopted) leaves no empty directory behind.
  return inMadeDir(target, () => serveHold(target, first, next, reply));
}

/** The session of `hold` on `target` (made beforehand unless it is a look). */
async function serveHold(
  target: string,
  first: Extract<StepRequest, { step: 'hold' }>,
  next: NextRequest,
  reply: (answer: StepReply) => void,
): Promise<void> {
  const look = first.look === true;
  const unlock = look ? async () => undefined : await lockDeploys(target);
  // Behind a hand-written config this host's own tree names its pid file and the log it writes.
  const adopted = first.adopted
    ? await readAdoptedView({ ...first.adopted, accessLog: first.accessLog }).catch(unlockAnd(unlock))
    : undefined;
  const log = adopted?.accessLog ?? first.accessLog;
  const pidFile = adopted?.pidFile ?? first.pidFile;
  const support: RefusalSupport = pidFile
    ? await refusalSupport(pidFile)
    : { ok: false, reason: 'no pid file was given' };
  // Allowed again when the session ends, however it ends, or once its bound has passed: a deploy
  // that lost this host (a link down: the session may take long to end) leaves no rule for long.
  const refused = new Map<string, Refused>();
  // The access log, read by descriptor across rotation from the session's first `log` on: one deploy's marks.
  const accessLog: { followed?: FollowedLog } = {};
  try {
    reply({
      ok: true,
      step: 'held',
      ...(support.ok ? {} : { unrefusable: support.reason }),
      ...(adopted ? { adopted } : {}),
    });
    for (let request = await next(); request; request = await next()) {
      try {
        if (look && !LOOK_STEPS.has(request.step))
          throw new ProxyopsError(
            'REMOTE_STEP_FAILED',
            `${request.step}: a look (deploy plan) changes nothing`,
          );
        if (request.step === 'prepare') await serveOneChange(target, request, next, reply);
        else if (request.step === 'refuse') reply(await refuse(support, refused, request));
        else reply(await answer(target, log, accessLog, request, adopted?.pidFile));
      } catch (error) {
        if (!isProxyopsError(error)) throw error;
        reply({ ok: false, error: { code: error.code, message: error.message } });
      }
    }
  } finally {
    accessLog.followed?.close();
    for (const { address, expiry } of refused.values()) {
      clearTimeout(expiry);
      await allowConnects(address).catch(() => undefined);
    }
    // A look leaves the progress of a deploy that holds the target alone.
    if (!look) await removeDeployProgress(target);
    await unlock();
  }
}

/** What a look session answers: reads only. */
const LOOK_STEPS: ReadonlySet<StepRequest['step']> = new Set(['read-state', 'live']);

/** A refusal this session made, and the timer that lifts it past its bound. */
interface Refused {
  address: RefusedAddress;
  expiry: NodeJS.Timeout;
}

async function refuse(
  support: RefusalSupport,
  refused: Map<string, Refused>,
  request: Extract<StepRequest, { step: 'refuse' }>,
): Promise<StepReply> {
  const address = { host: request.host, port: request.port };
  const key = `${address.host}:${address.port}`;
  clearTimeout(refused.get(key)?.expiry);
  refused.delete(key);
  if (!request.refuse) {
    // An address no rule can name was never refused.
    if (isRefusable(address)) await allowConnects(address);
    return { ok: true, step: 'refused' };
  }
  if (!support.ok)
    throw new ProxyopsError('REFUSE_FAILED', `cannot refuse connections here: ${support.reason}`);
  await refuseConnects(address, support.workerUid);
  const expiry = setTimeout(() => {
    refused.delete(key);
    void allowConnects(address).catch(() => undefined);
  }, request.boundMs);
  refused.set(key, { address, expiry });
  return { ok: true, step: 'refused' };
}

/** What the hand-written tree of `hold` names on this host: its pid file, its log and how that log is written. */
async function readAdoptedView(
  asked: NonNullable<Extract<StepRequest, { step: 'hold' }>['adopted']> & { accessLog: string },
): Promise<NonNullable<Extract<StepReply, { step: 'held' }>['adopted']>> {
  const { conf, upstream } = asked;
  const { pidFile, accessLog, running } = await readAdoptedNginx(
    { conf, ...(asked.pidFile === undefined ? {} : { pidFile: asked.pidFile }) },
    upstream,
  );
  const servers = running ? withBlockParams(asked.servers, running.config, upstream) : asked.servers;
  // The spec's log then: the watch's own check names what is missing.
  if (accessLog === undefined)
    return {
      pidFile,
      accessLog: asked.accessLog,
      logs: { notRead: `no access log of upstream ${upstream} found in ${conf} as nginx runs it` },
      servers,
    };
  return { pidFile, accessLog, logs: await readLiveAccessLog(pidFile, accessLog, upstream), servers };
}

/** Releases the lock before the error goes on (the session ends with it). */
function unlockAnd(unlock: () => Promise<void>): (error: unknown) => Promise<never> {
  return async (error) => {
    await unlock();
    throw error;
  };
}

async function answer(
  target: string,
  log: string,
  accessLog: { followed?: FollowedLog },
  request: StepRequest,
  adoptedPidFile?: string,
): Promise<StepReply> {
  switch (request.step) {
    case 'log': {
      const followed = (accessLog.followed ??= followedLog(log));
      if (request.from !== undefined) return { ok: true, step: 'log', ...followed.since(request.from) };
      const end = followed.end();
      const text = request.baseline ? await readLastLines(log, await fileSize(log)) : '';
      return { ok: true, step: 'log', text, end };
    }
    case 'read-state': {
      const state = await readStackState(target);
      return { ok: true, step: 'state', ...(state ? { state: state as unknown as RecordedState } : {}) };
    }
    case 'write-state':
      if (request.state) await writeStackState(target, request.state as unknown as StackState);
      if (request.progress) await writeDeployProgress(target, { pid: process.pid, ...request.progress });
      return { ok: true, step: 'state-written' };
    case 'live': {
      const { adopted, upstream } = request;
      const picture = await readLivePicture(adoptedPidFile ?? request.pidFile, target, upstream, adopted);
      const current = await readCurrentMain(target);
      const standing = adopted === undefined ? {} : await readAdoptionStanding(target, adopted, upstream);
      return {
        ok: true,
        step: 'live',
        target,
        ...(picture ? { picture } : {}),
        ...(current ? { current } : {}),
        ...(standing.unadopted === undefined ? {} : { unadopted: standing.unadopted }),
        ...(standing.marked ? { marked: standing.marked } : {}),
        ...(standing.drift
          ? {
              drift: (
                (await withLoadCommand(
                  driftError(standing.drift),
                  adoptedPidFile ?? request.pidFile,
                )) as Error
              ).message,
            }
          : {}),
      };
    }
    default:
      throw new ProxyopsError('REMOTE_STEP_FAILED', `${request.step} is not a step of a deploy session`);
  }
}

/** How a target stands: its live version, its recorded instances, and a deploy holding it. */
async function readStatus(
  target: string,
): Promise<Omit<Extract<StepReply, { step: 'status' }>, 'ok' | 'step'>> {
  const { current, versions } = await readVersionState(target);
  // A state directory of a hand-written tree has no `current` link: its last recorded change is
  // what its files hold (loaded, or an apply refuses until they are).
  const live = current ?? versions.at(-1);
  const state = await readStackState(target);
  const progress = await readDeployProgress(target);
  return {
    ...(live ? { live } : {}),
    ...(state ? { state: state as unknown as RecordedState } : {}),
    ...(progress && isAlive(progress.pid)
      ? { deploy: { pid: progress.pid, round: progress.round, step: progress.step, kind: progress.kind } }
      : {}),
  };
}
