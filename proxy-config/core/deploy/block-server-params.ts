import { listUpstreams } from '../nginx-config/query.js';
import type { NginxConfig } from '../nginx-config/types.js';
import { parseNginxTime } from '../nginx-config/units.js';
import type { UpstreamSpec } from '../spec/proxy-spec.js';
import { serverKey } from './compare-live-with-plan.js';

/** nginx's own values of a `server` line that writes neither. */
const NGINX_DEFAULTS = { maxFails: 1, failTimeout: 10 };

/**
 * The spec's servers of an adopted upstream with `max_fails` and `fail_timeout` as its hand-written
 * block has them (nginx's defaults where a line writes neither): the alternate path times its watch
 * and its switch back by what nginx does, not by the spec's defaults, which render nothing there.
 * A server the block does not list keeps the spec's (the look at the live nginx refuses it).
 */
export function withBlockParams(
  servers: UpstreamSpec['servers'],
  config: NginxConfig,
  upstream: string,
): UpstreamSpec['servers'] {
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
