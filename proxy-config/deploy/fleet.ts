import type { RecordedState, StepRequest } from '../core/apply/apply-steps-protocol.js';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import type { Host } from '../shell/host/host.js';
import { checkRemoteProxyops } from '../shell/host/remote-proxyops.js';
import { createSshHost } from '../shell/host/ssh-host.js';
import { openStepSession, type StepAnswer, type StepSession } from '../shell/host/step-session.js';
import type { StackState } from '../shell/stack-state.js';
import type { AccessLogs } from './access-logs.js';
import { toAddress } from '../core/deploy/plan-deploy.js';
import type { HostRefusal } from '../core/deploy/refusal.js';
import type { NginxRefusal } from './refuse-at-proxies.js';

/**
 * The hosts of a deploy across hosts: a step session on every nginx host of the spec, each holding
 * that host's deploy lock (taken one after the other in the order of `proxies`: two deploys can
 * never each hold a part), and an ssh connection to every app host its servers name.
 */
export interface Fleet {
  /** The nginx hosts' sessions, in the order of `proxies`. */
  proxies: StepSession[];
  /** The app host a server's `ssh` names (one connection each). */
  appHost(ssh: string): Host;
  logs: AccessLogs;
  /** What each nginx host said of refusing nginx's connections there. */
  refusalHosts: HostRefusal[];
  /** Behind a hand-written config: what each host's own tree names (in the order of `proxies`). */
  adopted?: Array<NonNullable<Extract<StepAnswer, { step: 'held' }>['adopted']> & { host: string }>;
  /** Refusing nginx's new connections to an address on every nginx host at once. */
  refusal: NginxRefusal;
  readState(): Promise<StackState | undefined>;
  /** Records the state (and where the deploy is) on every nginx host still reachable. */
  writeState(
    state: StackState | undefined,
    progress?: { round: number; step: number; kind: string },
  ): Promise<void>;
  /** What the live nginx of every nginx host still reachable runs (see `live-nginx-check.ts`), with the host's name. */
  readLive(
    pidFile: string,
    upstream: string,
    adopted?: string,
  ): Promise<Array<Omit<Extract<StepAnswer, { step: 'live' }>, 'ok' | 'step'> & { host: string }>>;
  /** Asks every nginx host still reachable, at once; a lost one is named in the error. */
  requestAll(request: StepRequest): Promise<StepAnswer[]>;
  /** Ends the sessions (each far side releases its lock) and closes every connection. */
  close(): Promise<void>;
}

/** The error of a host: its message names it, its details carry its name for the deploy's report. */
export function onHost(host: string, error: unknown): Error {
  if (error instanceof ProxyopsError) {
    const details = (error.details ?? {}) as Record<string, unknown>;
    return new ProxyopsError(error.code, error.message, {
      cause: error.cause,
      details: { ...details, host },
    });
  }
  return error as Error;
}

/** The host an error names in its details (see `onHost`). */
export function hostOf(error: unknown): string | undefined {
  const details = (error as { details?: { host?: unknown } } | undefined)?.details;
  return typeof details?.host === 'string' ? details.host : undefined;
}

/**
 * Connects to every nginx and app host of the spec at once and checks their proxyops, then takes
 * each nginx host's deploy lock in the order of `proxies`. Any failure ends what was opened and
 * names the host; nothing has changed anywhere then. With `look` (`deploy plan`) no lock is taken
 * and the hosts answer only what the look before acting reads: what a deploy would see, changing nothing.
 */
export async function openFleet(spec: ProxySpec, upstream: string, look = false): Promise<Fleet> {
  const servers = Object.values(spec.upstreams).flatMap((u) => u.servers);
  const apps = [...new Set(servers.flatMap((s) => (s.ssh ? [s.ssh] : [])))];
  const proxyHosts = spec.proxies.map((p) => createSshHost(p.ssh));
  const appHosts = new Map(apps.map((name) => [name, createSshHost(name)]));
  const sessions: StepSession[] = [];
  const lost = new Set<StepSession>();
  const refusalHosts: HostRefusal[] = [];
  const adopted: NonNullable<Fleet['adopted']> = [];
  const close = async () => {
    await Promise.all(sessions.map((s) => s.end()));
    await Promise.all([...proxyHosts, ...appHosts.values()].map((h) => h.close()));
  };
  try {
    const checks = await Promise.allSettled([
      ...proxyHosts.map((host) => checkRemoteProxyops(host)),
      ...[...appHosts.values()].map((host) => host.run(['true']).then(() => undefined)),
    ]);
    const failed = checks.flatMap((c) => (c.status === 'rejected' ? [(c.reason as Error).message] : []));
    if (failed.length > 0)
      throw new ProxyopsError(
        (checks.find((c) => c.status === 'rejected') as PromiseRejectedResult).reason.code ??
          'HOST_UNREACHABLE',
        `${failed.join('\n')}; nothing changed`,
        { perLine: true },
      );
    for (const [index, host] of proxyHosts.entries()) {
      const session = openStepSession(host, spec.proxies[index]!.target);
      sessions.push(session);
      try {
        const held = await session.request({
          step: 'hold',
          accessLog: spec.accessLog.path,
          pidFile: spec.paths.pidFile,
          ...(look ? { look: true as const } : {}),
          // Each host's own tree names its pid file and the log it writes for the upstream.
          ...(spec.nginx
            ? {
                adopted: {
                  conf: spec.nginx.conf,
                  upstream,
                  servers: (spec.upstreams[upstream]?.servers ?? []).map((s) => ({
                    host: s.host,
                    port: s.port,
                    maxFails: s.maxFails,
                    failTimeout: s.failTimeout,
                  })),
                  ...(spec.nginx.pidFile === undefined ? {} : { pidFile: spec.nginx.pidFile }),
                },
              }
            : {}),
        });
        if (held.step === 'held' && held.adopted) adopted.push({ ...held.adopted, host: host.name });
        refusalHosts.push({
          host: host.name,
          ...(held.step === 'held' && held.unrefusable ? { unrefusable: held.unrefusable } : {}),
        });
      } catch (error) {
        const held = sessions.slice(0, -1).map((s) => s.host.name);
        throw new ProxyopsError(
          (error as ProxyopsError).code ?? 'DEPLOY_RUNNING',
          `${(error as Error).message}; nothing changed${held.length > 0 ? ` (the locks of ${held.join(', ')} released)` : ''}`,
          { details: { host: host.name } },
        );
      }
    }
  } catch (error) {
    await close();
    throw error;
  }

  const ask = async (session: StepSession, request: StepRequest): Promise<StepAnswer> => {
    try {
      return await session.request(request);
    } catch (error) {
      // A failed request on a host that answered leaves the host in the deploy.
      if ((error as { details?: { answered?: boolean } }).details?.answered !== true) lost.add(session);
      throw onHost(session.host.name, error);
    }
  };
  const reachable = () => sessions.filter((s) => !lost.has(s));
  // The hosts each address was refused on, to know whether a lost one may still refuse it.
  const refusedAt = new Map<string, Set<StepSession>>();
  const fleet: Fleet = {
    proxies: sessions,
    appHost(ssh) {
      const host = appHosts.get(ssh);
      if (!host)
        throw new ProxyopsError('SPEC_INVALID', `${ssh} is not an ssh host of the upstream's servers`);
      return host;
    },
    logs: {
      // Every log is needed: a watch that missed one host's requests would judge too few.
      end: async () => (await Promise.all(sessions.map((s) => ask(s, { step: 'log' })))).map(endOf),
      async since(mark) {
        const answers = await Promise.all(
          sessions.map((s, i) => ask(s, { step: 'log', from: mark[i] ?? 0 })),
        );
        return { text: answers.map(textOf).join(''), end: answers.map(endOf) };
      },
      baseline: async () =>
        (await Promise.all(sessions.map((s) => ask(s, { step: 'log', baseline: true }))))
          .map(textOf)
          .join(''),
      // Each far side reads its log for its session: it closes it when the session ends.
      close: () => undefined,
    },
    refusalHosts,
    ...(spec.nginx ? { adopted } : {}),
    refusal: {
      async refuse(address, boundMs) {
        const key = toAddress(address);
        refusedAt.set(key, new Set(reachable()));
        await fleet.requestAll({
          step: 'refuse',
          host: address.host,
          port: address.port,
          refuse: true,
          boundMs,
        });
      },
      async allow(address) {
        const key = toAddress(address);
        await fleet.requestAll({
          step: 'refuse',
          host: address.host,
          port: address.port,
          refuse: false,
          boundMs: 0,
        });
        const stuck = [...(refusedAt.get(key) ?? [])].filter((s) => lost.has(s)).map((s) => s.host.name);
        refusedAt.delete(key);
        // The caller must not count on nginx there sending to this address again before the bound passed.
        if (stuck.length > 0)
          throw new ProxyopsError(
            'REFUSAL_STUCK',
            `${stuck.join(', ')} was lost while its nginx refused ${key}; proxyops there lifts that itself once the deploy's bound for it has passed`,
            { details: { host: stuck[0] } },
          );
      },
    },
    async readState() {
      const answer = await ask(sessions[0]!, { step: 'read-state' });
      return answer.step === 'state' ? (answer.state as unknown as StackState | undefined) : undefined;
    },
    async writeState(state, progress) {
      await fleet.requestAll({
        step: 'write-state',
        ...(state ? { state: state as unknown as RecordedState } : {}),
        ...(progress ? { progress } : {}),
      });
    },
    // Every host is needed: a host whose nginx cannot be seen cannot be said to match.
    // A host lost mid-deploy is the abort's own reason: the look after a switch back judges the
    // hosts still reachable (before the first step every host is).
    readLive: (pidFile, upstream, conf) =>
      Promise.all(
        reachable().map(async (s) => {
          const answer = await ask(s, {
            step: 'live',
            pidFile,
            upstream,
            ...(conf === undefined ? {} : { adopted: conf }),
          });
          if (answer.step !== 'live')
            throw new ProxyopsError('REMOTE_STEP_FAILED', `${s.host.name}: no live answer`);
          const { ok: _ok, step: _step, ...live } = answer;
          return { ...live, host: s.host.name };
        }),
      ),
    requestAll: (request) => Promise.all(reachable().map((s) => ask(s, request))),
    close,
  };
  return fleet;
}

function endOf(answer: StepAnswer): number {
  return answer.step === 'log' ? answer.end : 0;
}

function textOf(answer: StepAnswer): string {
  return answer.step === 'log' ? answer.text : '';
}
