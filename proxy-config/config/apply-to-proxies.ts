import { digestSpec } from '../core/apply/config-change.js';
import { renderVersionManifest, VERSION_MANIFEST_FILE } from '../core/apply/version-manifest.js';
import type { VersionFiles } from '../core/apply/config-change.js';
import type { StepRequest, TreeSource } from '../core/apply/apply-steps-protocol.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxyHostSpec, ProxySpec } from '../core/spec/proxy-spec.js';
import { toVersionName } from '../shell/nginx/config-versions.js';
import type { ReloadResult } from '../shell/nginx/reload-nginx.js';
import type { TreeChangeKind } from '../shell/nginx/tree-history.js';
import { checkRemoteProxyops } from '../shell/host/remote-proxyops.js';
import { createSshHost } from '../shell/host/ssh-host.js';
import { openStepSession, type StepAnswer, type StepSession } from '../shell/host/step-session.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import type { HistoryEntry } from './config-history.js';
import { renderSpec } from './render-config.js';

/** What one nginx host did in an apply to several. */
export interface HostApplyReport {
  host: string;
  target: string;
  version: string;
  previous?: string;
  /** The host already held this render: nothing written or reloaded there. */
  unchanged?: true;
  /** Absent when no nginx runs there: the files were installed only. */
  reload?: ReloadResult;
}

/** What `config apply` did with `proxies`: the one version and each host in the order it was switched. */
export interface ProxiesApplyReport {
  /** The version every changed host now runs; absent when every host already held this render. */
  version?: string;
  /** A change to hand-written trees: what it was (absent for a render), so the summary says it as one host's does. */
  kind?: TreeChangeKind;
  /** A rollback: the version it undid (the last one recorded before it). */
  undid?: string;
  hosts: HostApplyReport[];
}

/** The spec's nginx hosts; BAD_OPTION when it names none, SPEC_INVALID when one is named twice. */
export async function readProxiesSpec(specPath: string): Promise<ProxySpec> {
  const spec = await readSpecFile(specPath);
  if (spec.proxies.length === 0)
    throw new ProxyopsError(
      'BAD_OPTION',
      `${specPath} has no proxies: give --target DIR, or list the nginx hosts under proxies`,
    );
  const seen = new Set<string>();
  for (const { ssh, target } of spec.proxies) {
    const key = `${ssh}\0${target}`;
    if (seen.has(key))
      throw new ProxyopsError('SPEC_INVALID', `${specPath}: proxies lists ${ssh} ${target} twice`);
    seen.add(key);
  }
  return spec;
}

/** The render once for every host: the nginx config and its manifest. */
async function renderOnce(spec: ProxySpec): Promise<VersionFiles> {
  return { ...(await renderSpec(spec)), [VERSION_MANIFEST_FILE]: renderVersionManifest(spec) };
}

/**
 * Applies a spec to every nginx host it lists as one change. Render once; on every host at once,
 * check its proxyops, upload and test (lint, nginx -t). Only when every host passed, switch each in
 * turn (commit under one version name, swap, reload, confirm the new workers). When a host fails,
 * the hosts already switched go back to what they ran, so every host ends on the old version or
 * every host on the new one.
 */
export async function applyToProxies(
  specPath: string,
  say: (line: string) => void,
): Promise<ProxiesApplyReport> {
  const spec = await readProxiesSpec(specPath);
  return withSessions(spec.proxies, (sessions) => changeProxies(sessions, spec, say));
}

/**
 * The change itself, over sessions already open (and locked) on every nginx host: `config apply`'s,
 * and a deploy's on the reload path, whose sessions hold the hosts' deploy locks.
 */
export async function changeProxies(
  sessions: StepSession[],
  spec: ProxySpec,
  say: (line: string) => void,
): Promise<ProxiesApplyReport> {
  const files = await renderOnce(spec);
  const request = {
    step: 'prepare',
    files,
    spec,
    specDigest: digestSpec(spec),
    appliedAt: new Date().toISOString(),
  } as const;
  return changeEveryHost(sessions, request, 'render', say);
}

/**
 * Prepares `request` (a render, or a change to a hand-written tree) on every host at once; only when
 * every host passed, switches each in turn under one version name; when one fails, the hosts already
 * switched go back. `what` names the change in the line of a host that already holds it.
 */
export async function changeEveryHost(
  sessions: StepSession[],
  request: Extract<StepRequest, { step: 'prepare' | 'prepare-tree' }>,
  what: string,
  say: (line: string) => void,
): Promise<ProxiesApplyReport> {
  const outcomes = await Promise.allSettled(sessions.map((s) => s.request(request)));
  const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as Error] : []));
  if (failed.length > 0) {
    // The hosts that prepared drop their staging (a lost one did so itself).
    await Promise.allSettled(
      sessions
        .filter((_, i) => outcomes[i]!.status === 'fulfilled')
        .map((s) => s.request({ step: 'finish' })),
    );
    throw withSuffix(failed, 'no host changed');
  }
  const prepared = outcomes.map(
    (o) => (o as PromiseFulfilledResult<StepAnswer & { step: 'prepared' }>).value,
  );
  say(`validated on ${sessions.length} host${sessions.length === 1 ? '' : 's'}: nginx -t ok`);
  const version = toVersionName(Math.max(...prepared.map((p) => p.nextVersion)));
  const reports: HostApplyReport[] = [];
  const switched: StepSession[] = [];
  for (const [index, session] of sessions.entries()) {
    const { unchanged } = prepared[index]!;
    if (unchanged) {
      reports.push({
        host: session.host.name,
        target: session.target,
        version: unchanged,
        unchanged: true,
      });
      say(`${session.host.name}: unchanged, ${unchanged} already holds this ${what}`);
      continue;
    }
    let answer: StepAnswer;
    try {
      answer = await session.request({ step: 'switch', version });
    } catch (error) {
      // That host put itself back (or was lost before it changed anything it could not undo); the
      // hosts not reached yet drop their staging.
      await Promise.allSettled(sessions.slice(index + 1).map((s) => s.request({ step: 'finish' })));
      throw await undoAll(switched, error as Error, say);
    }
    if (answer.step !== 'switched')
      throw new ProxyopsError(
        'REMOTE_STEP_FAILED',
        `${session.host.name}: answered ${answer.step} to switch`,
      );
    switched.push(session);
    reports.push({
      host: session.host.name,
      target: session.target,
      version: answer.version,
      ...(answer.previous ? { previous: answer.previous } : {}),
      ...(answer.reload ? { reload: answer.reload } : {}),
    });
    // A host with no version before (the first adoption, a first render) says only the new one.
    say(
      `${session.host.name}: ${answer.previous ? `${answer.previous} -> ` : ''}${answer.version}, ` +
        (answer.reload
          ? `reloaded, workers ${answer.reload.workersBefore.join(',')} -> ${answer.reload.workersAfter.join(',')}`
          : request.step === 'prepare'
            ? `nginx not running there: installed only; start it with nginx -c ${session.target}/current/nginx.conf`
            : 'nginx not running there: files written only'),
    );
  }
  await Promise.all(sessions.map((s) => s.request({ step: 'finish' })));
  const kind = request.step === 'prepare-tree' ? treeKindOf(request.source.kind) : undefined;
  const undid = kind === 'rollback' ? reports.find((r) => !r.unchanged)?.previous : undefined;
  return {
    ...(switched.length > 0 ? { version } : {}),
    ...(kind ? { kind } : {}),
    ...(undid ? { undid } : {}),
    hosts: reports,
  };
}

/** The history's kind of a change to hand-written trees, from what was asked. */
function treeKindOf(source: TreeSource['kind']): TreeChangeKind {
  return source === 'files' ? 'tree' : source;
}

/** What `config diff` shows with `proxies`: each host's diff against its live version. */
export async function diffProxies(
  specPath: string,
): Promise<Array<{ host: string; live?: string; diff: string }>> {
  const spec = await readProxiesSpec(specPath);
  const files = await renderOnce(spec);
  return diffEveryHost(spec.proxies, { step: 'diff', files });
}

/** Each host's answer to one read-only diff request (rendered files, or a hand-written tree), headed by the host. */
export async function diffEveryHost(
  proxies: ProxyHostSpec[],
  request: Extract<StepRequest, { step: 'diff' | 'diff-tree' }>,
): Promise<Array<{ host: string; live?: string; diff: string }>> {
  return withSessions(
    proxies,
    (sessions) =>
      Promise.all(
        sessions.map(async (session) => {
          const answer = await session.request(request);
          if (answer.step !== 'diffed')
            throw new ProxyopsError(
              'REMOTE_STEP_FAILED',
              `${session.host.name}: answered ${answer.step} to diff`,
            );
          return {
            host: session.host.name,
            diff: answer.diff,
            ...(answer.live ? { live: answer.live } : {}),
          };
        }),
      ),
    true,
  );
}

/** What `config history` shows with `proxies`: each host's kept versions. */
export async function readProxiesHistory(
  specPath: string,
): Promise<Array<{ host: string; versions: HistoryEntry[] }>> {
  const spec = await readProxiesSpec(specPath);
  return withSessions(
    spec.proxies,
    (sessions) =>
      Promise.all(
        sessions.map(async (session) => {
          const answer = await session.request({ step: 'history' });
          if (answer.step !== 'history')
            throw new ProxyopsError(
              'REMOTE_STEP_FAILED',
              `${session.host.name}: answered ${answer.step} to history`,
            );
          return { host: session.host.name, versions: answer.versions };
        }),
      ),
    true,
  );
}

/**
 * Connects to every host at once, checks the proxyops there and opens its step session; ends them
 * all (an unfinished far side undoes its part) and closes the connections whatever happens. A host
 * that cannot be reached fails it with one line per host, ending "no host changed" for a change
 * (`readOnly` false): a read-only command (diff, history) has nothing to reassure about.
 */
export async function withSessions<T>(
  proxies: ProxyHostSpec[],
  work: (sessions: StepSession[]) => Promise<T>,
  readOnly = false,
): Promise<T> {
  const hosts = proxies.map((p) => createSshHost(p.ssh));
  const sessions: StepSession[] = [];
  try {
    const checks = await Promise.allSettled(hosts.map((host) => checkRemoteProxyops(host)));
    const failed = checks.flatMap((c) => (c.status === 'rejected' ? [c.reason as Error] : []));
    if (failed.length > 0) throw withSuffix(failed, readOnly ? undefined : 'no host changed');
    for (const [index, host] of hosts.entries()) sessions.push(openStepSession(host, proxies[index]!.target));
    return await work(sessions);
  } finally {
    await Promise.all(sessions.map((s) => s.end()));
    await Promise.all(hosts.map((h) => h.close()));
  }
}

/** Asks every switched host, newest first, to go back; the error says where each one stands. */
async function undoAll(switched: StepSession[], cause: Error, say: (line: string) => void): Promise<Error> {
  const back: string[] = [];
  const stuck: string[] = [];
  for (const session of [...switched].reverse()) {
    try {
      await session.request({ step: 'undo' });
      back.push(session.host.name);
      say(`${session.host.name}: back on its previous version`);
    } catch (error) {
      stuck.push(`${session.host.name} (${(error as Error).message})`);
    }
  }
  const state = [
    back.length > 0 ? `${back.join(', ')} back on the previous version` : 'no other host had changed',
    ...(stuck.length > 0 ? [`could not put back: ${stuck.join('; ')}`] : []),
  ].join('; ');
  return withSuffix([cause], state);
}

/** One error for several hosts' failures: the first one's code, every host's message, then `suffix`. */
function withSuffix(errors: Error[], suffix: string | undefined): ProxyopsError {
  const code = (errors[0] as { code?: string }).code ?? 'FAILED';
  const message = errors.map((e) => e.message).join('\n');
  return new ProxyopsError(code, suffix === undefined ? message : `${message}; ${suffix}`, {
    cause: errors[0],
    perLine: true,
  });
}
