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
  address: InstanceAddress & { socket?: string },
): InstanceCommand {
  const fill = (arg: string) =>
    arg
      .replaceAll('{host}', address.host)
      .replaceAll('{port}', String(address.port))
      .replaceAll('{socket}', address.socket ?? '');
  const [file, ...args] = deploy.command.map(fill);
  const ms = (seconds: number) => String(Math.round(seconds * 1000));
  return {
    file: file!,
    args,
    env: {
      ...(address.socket === undefined
        ? { PROXYOPS_HOST: address.host, PROXYOPS_PORT: String(address.port) }
        : { PROXYOPS_SOCKET: address.socket }),
      PROXYOPS_INSTANCE_NAME: instanceName(address),
      PROXYOPS_HEALTH_INTERVAL_MS: ms(pool.healthCheck.interval),
      PROXYOPS_HEALTH_THRESHOLD: String(pool.healthCheck.failureThreshold),
      PROXYOPS_DRAIN_MARGIN_MS: ms(pool.healthCheck.margin),
      PROXYOPS_KEEP_ALIVE_MS: ms(pool.app.keepAliveTimeout),
      PROXYOPS_PROXY_KEEP_ALIVE_MS: ms(pool.keepaliveTimeout),
    },
  };
}
