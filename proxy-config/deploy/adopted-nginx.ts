import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { findDrift, type AdoptionRecord } from '../core/adopt/find-drift.js';
import { withBlockParams } from '../core/deploy/block-server-params.js';
import { servedAccessLogFiles } from '../core/deploy/live-logs.js';
import { toAddress, type DeployPlan } from '../core/deploy/plan-deploy.js';
import { ProxyopsError } from '../core/errors.js';
import { parseNginxConfig } from '../core/nginx-config/parse-nginx-config.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { dumpRunningConfig, readRunningConfig, runningNginxOf } from '../shell/nginx/running-nginx.js';
import type { DeployContext } from './deploy-context.js';
import { describeErrno } from '../shell/describe-path.js';

/** nginx's own default when neither the spec nor the config names a pid file (Debian's build). */
const DEFAULT_PID_FILE = '/run/nginx.pid';

/**
 * The pid file of the master running a hand-written config: the spec's `nginx.pidFile`, else the
 * config's own top-level `pid`, else nginx's default.
 */
export async function adoptedPidFile(nginx: NonNullable<ProxySpec['nginx']>): Promise<string> {
  if (nginx.pidFile !== undefined) return nginx.pidFile;
  const text = await readFile(nginx.conf, 'utf8').catch((error: unknown) => {
    throw new ProxyopsError(
      'NGINX_CONFIG_UNREADABLE',
      `cannot read ${nginx.conf} (nginx.conf of the spec): ${describeErrno(error)}`,
    );
  });
  const pid = parseNginxConfig(text, nginx.conf).find((d) => d.name === 'pid')?.args[0];
  if (pid === undefined) return DEFAULT_PID_FILE;
  // A relative pid resolves against nginx's compiled prefix, which only the binary knows.
  if (!isAbsolute(pid))
    throw new ProxyopsError(
      'SPEC_INVALID',
      `${nginx.conf} names a relative pid file (${pid}): give the spec nginx.pidFile, the absolute path of the master's pid file`,
    );
  return pid;
}

/**
 * The spec a deploy behind a hand-written config works from: its pid file the one that config's
 * master writes, its access log the one that config writes where `upstream` is served, and its
 * servers' max_fails/fail_timeout the block's own (read from the running master; the spec's when
 * none runs, which the look before the first step then refuses). The log's format is read from the
 * running config by the watch's own check.
 */
export async function adoptedDeploySpec(spec: ProxySpec, upstream: string): Promise<ProxySpec> {
  const pidFile = await adoptedPidFile(spec.nginx!);
  const master = await runningNginxOf(pidFile).catch(() => undefined);
  const config = master && (await readRunningConfig(master).catch(() => undefined));
  const paths = { ...spec.paths, pidFile };
  if (!master || !config) return { ...spec, paths };
  const served = servedAccessLogFiles(config, master.prefix, upstream)[0];
  const pool = spec.upstreams[upstream]!;
  return {
    ...spec,
    paths,
    accessLog: { ...spec.accessLog, ...(served === undefined ? {} : { path: served }) },
    upstreams: {
      ...spec.upstreams,
      [upstream]: { ...pool, servers: withBlockParams(pool.servers, config, upstream) },
    },
  };
}

/**
 * Behind a hand-written config every instance takes the alternate path: its server lines are the
 * adoption's, and a deploy never reloads that config. A reload would load, mid-deploy, whatever
 * hand edit waits on disk elsewhere in the tree, and a per-round edit of the block is a config
 * change `config apply` owns (tested, recorded, undoable). The reason an instance is refused, or undefined.
 */
export function adoptedPathRefusal(plan: DeployPlan, conf: string, specPath: string): string | undefined {
  const refused = plan.instances.filter((_, i) => plan.paths[i] !== 'alternate');
  if (refused.length === 0) return undefined;
  const first = refused[0]!;
  return `upstream ${plan.upstream} of ${conf}: ${refused.map(toAddress).join(', ')} would take the ${plan.paths[plan.instances.indexOf(first)]} path, which changes the config and reloads nginx; behind an adopted config a deploy moves traffic only between blue/green pairs (no reload), so give ${toAddress(first)} an alternate in ${specPath} and run proxyops config apply --spec ${specPath}; nothing started or stopped`;
}

/** proxyops' record of what its adoption made of each upstream block (written by `config apply`). */
export const ADOPTION_RECORD_FILE = 'adoption.json';

/**
 * Before the first step behind a hand-written config: every instance on the alternate path, the
 * upstream adopted (its alternates are lines proxyops added and knows), and its block as the
 * adoption left it. A hand edit inside the block is drift: the deploy names the changed lines and
 * refuses to guess (ADOPT_DRIFT, exit 2); nothing has started.
 */
export async function checkAdoptedDeploy(context: DeployContext): Promise<void> {
  const { conf } = context.adopted!;
  const refused = adoptedPathRefusal(context.plan, conf, context.specPath);
  if (refused) throw new ProxyopsError('ADOPT_REFUSED', refused);
  const recordPath = join(context.target, ADOPTION_RECORD_FILE);
  const record = await readAdoptionRecord(recordPath);
  if (!record?.upstreams[context.upstream])
    throw new ProxyopsError(
      'ADOPT_REFUSED',
      `upstream ${context.upstream} of ${conf} is not adopted (${recordPath} does not record it): adopt it first with proxyops config apply --spec ${context.specPath}${context.target === context.spec.nginx?.state ? '' : ` --target ${context.target}`}; nothing started or stopped`,
    );
  const master = await runningNginxOf(context.spec.paths.pidFile).catch(() => undefined);
  // No master: the look at the live nginx that follows refuses, naming the pid file.
  if (!master) return;
  const dump = await dumpRunningConfig(master);
  const drift = findDrift({ conf: master.configFile, files: dump.files }, record);
  const lines = drift[context.upstream] ?? [];
  if (lines.length > 0)
    throw new ProxyopsError(
      'ADOPT_DRIFT',
      `upstream ${context.upstream} was edited by hand inside the lines proxyops manages (${record.upstreams[context.upstream]!.file}): ${lines.join('; ')}; nothing started or stopped: put the block back as config apply left it, or run proxyops config apply --spec ${context.specPath} to adopt it again`,
    );
}

async function readAdoptionRecord(path: string): Promise<AdoptionRecord | undefined> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' ? undefined : Promise.reject(error),
  );
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as AdoptionRecord;
  } catch (error) {
    throw new ProxyopsError('STATE_UNREADABLE', `${path} is not JSON: ${(error as Error).message}`);
  }
}
