import { ProxyopsError } from '../errors.js';
import type { DeploySpec, UpstreamSpec } from '../spec/proxy-spec.js';
import type { InstanceAddress } from './plan-deploy.js';

/** How to run one instance: argv and the environment that carries the pool's timings. */
export interface InstanceCommand {
  file: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The name an instance sends in X-Proxyops-Instance (PROXYOPS_INSTANCE_NAME), which the access log
 * records: the file name of its own socket behind a slot (`slot-0.1a2b3c4d`), else its address.
 */
export function instanceName(address: InstanceAddress & { socket?: string | undefined }): string {
  if (address.socket === undefined) return `${address.host}:${address.port}`;
  return address.socket.slice(address.socket.lastIndexOf('/') + 1).replace(/\.sock$/, '');
}

/**
 * The command of a new instance at `address`: `{host}`/`{port}` (or `{socket}`, the fresh socket path
 * of an instance behind a slot) filled in, and the PROXYOPS_*
 * variables of `proxyops api` set from the spec, so the instance drains for exactly the wait the
 * deploy computed and outlives nginx's idle upstream connections.
 */
export function toInstanceCommand(
  deploy: Pick<DeploySpec, 'command'>,
  pool: Pick<UpstreamSpec, 'healthCheck' | 'app' | 'keepaliveTimeout'>,
  address: InstanceAddress & { socket?: string; version?: string | undefined; handOver?: boolean },
): InstanceCommand {
  if (!deploy.command)
    throw new ProxyopsError(
      'SPEC_INVALID',
      'deploy.command is not set: the instances of this upstream are started by its start hook',
    );
  const [file, ...args] = fillHook(deploy.command, address);
  const ms = (seconds: number) => String(Math.round(seconds * 1000));
  return {
    file: file!,
    args,
    env: {
      ...(address.socket === undefined
        ? { PROXYOPS_HOST: address.host, PROXYOPS_PORT: String(address.port) }
        : { PROXYOPS_SOCKET: address.socket }),
      PROXYOPS_INSTANCE_NAME: instanceName(address),
      // One of a blue/green pair nginx lists both of: listen once ready, leave by closing the listener first.
      ...(address.handOver ? { PROXYOPS_DRAIN: 'hand-over' } : {}),
      PROXYOPS_HEALTH_INTERVAL_MS: ms(pool.healthCheck.interval),
      PROXYOPS_HEALTH_THRESHOLD: String(pool.healthCheck.failureThreshold),
      PROXYOPS_DRAIN_MARGIN_MS: ms(pool.healthCheck.margin),
      PROXYOPS_KEEP_ALIVE_MS: ms(pool.app.keepAliveTimeout),
      PROXYOPS_PROXY_KEEP_ALIVE_MS: ms(pool.keepaliveTimeout),
    },
  };
}

/** Where a hook acts: an instance's address (or socket) and the version being deployed. */
export interface HookTarget {
  host: string;
  port: number;
  socket?: string | undefined;
  version?: string | undefined;
}

/** The placeholders of `command` and the lifecycle hooks, as documented in docs/deploys.md. */
export const HOOK_PLACEHOLDERS = ['{host}', '{port}', '{socket}', '{version}'] as const;

/**
 * An argv with `{host}`, `{port}`, `{socket}` and `{version}` filled in. Each argument stays one
 * argument whatever it holds (no shell), so a value cannot add arguments.
 */
export function fillHook(argv: readonly string[], at: HookTarget): string[] {
  return argv.map((arg) =>
    arg
      .replaceAll('{host}', at.host)
      .replaceAll('{port}', String(at.port))
      .replaceAll('{socket}', at.socket ?? '')
      .replaceAll('{version}', at.version ?? '{version}'),
  );
}

/** True when a hook (or the command) of `deploy` names `{version}`: the deploy then needs `--version`. */
export function needsVersion(deploy: Pick<DeploySpec, 'command' | 'start' | 'stop' | 'ready'>): boolean {
  const argvs = [deploy.command, deploy.start, deploy.stop, Array.isArray(deploy.ready) ? deploy.ready : []];
  return argvs.some((argv) => argv?.some((arg) => arg.includes('{version}')));
}

/** An argv as a person would type it: arguments with spaces or quotes quoted. */
export function formatArgv(argv: readonly string[]): string {
  return argv
    .map((arg) => (/^[\w@%+=:,./{}-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`))
    .join(' ');
}
