import { listUpstreams } from '../nginx-config/query.js';
import type { NginxConfig } from '../nginx-config/types.js';
import { parseNginxTime } from '../nginx-config/units.js';
import type { UpstreamSpec } from '../spec/proxy-spec.js';
import { serverKey } from './compare-live-with-plan.js';

/** What a server's line says of nginx's passive health checks (a spec server's fields of the same name). */
export type BlockServer = Pick<UpstreamSpec['servers'][number], 'host' | 'port' | 'maxFails' | 'failTimeout'>;

/** nginx's own values of a `server` line that writes neither. */
const NGINX_DEFAULTS = { maxFails: 1, failTimeout: 10 };

/**
 * The spec's servers of an adopted upstream with `max_fails` and `fail_timeout` as its hand-written
 * block has them (nginx's defaults where a line writes neither): the alternate path times its watch
 * and its switch back by what nginx does, not by the spec's defaults, which render nothing there.
 * A server the block does not list keeps the spec's (the look at the live nginx refuses it).
 */
export function withBlockParams<S extends BlockServer>(
  servers: readonly S[],
  config: NginxConfig,
  upstream: string,
): S[] {
  const lines = (listUpstreams(config).get(upstream)?.children ?? []).filter(
    (d) => d.name === 'server' && d.args[0],
  );
  return servers.map((server) => {
    const line = lines.find((d) => serverKey(d.args[0]!) === serverKey(`${server.host}:${server.port}`));
    if (!line) return server;
    const param = (name: string) => line.args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
    const maxFails = Number(param('max_fails') ?? NGINX_DEFAULTS.maxFails);
    const timeoutMs = parseNginxTime(param('fail_timeout') ?? `${NGINX_DEFAULTS.failTimeout}s`);
    return {
      ...server,
      maxFails: Number.isInteger(maxFails) ? maxFails : server.maxFails,
      failTimeout: timeoutMs === undefined ? server.failTimeout : timeoutMs / 1000,
    };
  });
}

/**
 * The spec's servers with the block params several hosts' blocks have (`perHost`: each host's
 * withBlockParams of the same servers): the largest of each, so the alternate path waits out the
 * slowest host's nginx.
 */
export function withLargestParams<S extends BlockServer>(
  servers: readonly S[],
  perHost: BlockServer[][],
): S[] {
  return servers.map((server, i) => {
    const seen = perHost.map((host) => host[i]).filter((s): s is BlockServer => s !== undefined);
    if (seen.length === 0) return server;
    return {
      ...server,
      maxFails: Math.max(...seen.map((s) => s.maxFails)),
      failTimeout: Math.max(...seen.map((s) => s.failTimeout)),
    };
  });
}
