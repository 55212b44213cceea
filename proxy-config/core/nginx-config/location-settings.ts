import { parseProxyPassTarget } from './proxy-pass-target.js';
import {
  childrenNamed,
  effectiveDirective,
  effectiveProxyHeaders,
  listUpstreams,
  proxyPassOf,
  type BlockScope,
} from './query.js';
import type { NginxConfig, NginxDirective } from './types.js';
import { parseNginxSize, parseNginxTime } from './units.js';

/** One effective setting: its value (nginx's default when unset) and the directive that set it. */
export interface EffectiveSetting<T> {
  value: string;
  parsed: T | undefined;
  /** The directive in effect, or undefined when nginx's default applies. */
  setBy: NginxDirective | undefined;
}

/** What a location does to a proxied request: the settings an incident diagnosis asks about. */
export interface LocationSettings {
  clientMaxBodySize: EffectiveSetting<number>;
  proxyConnectTimeout: EffectiveSetting<number>;
  proxyReadTimeout: EffectiveSetting<number>;
  proxySendTimeout: EffectiveSetting<number>;
  proxyHttpVersion: EffectiveSetting<string>;
  /** Headers sent upstream (lower-cased name → value), after inheritance. */
  proxyHeaders: ReadonlyMap<string, string>;
  proxyPass: NginxDirective | undefined;
  /** The `upstream {}` group proxy_pass names, with its keep-alive pool size and idle timeout. */
  upstream:
    | {
        name: string;
        block: NginxDirective;
        keepalive: number | undefined;
        keepaliveTimeout: EffectiveSetting<number>;
      }
    | undefined;
}

function setting<T>(
  chain: NginxDirective[],
  name: string,
  fallback: string,
  parse: (value: string) => T | undefined,
): EffectiveSetting<T> {
  const setBy = effectiveDirective(chain, name);
  const value = setBy?.args[0] ?? fallback;
  return { value, parsed: parse(value), setBy };
}

const asIs = (value: string) => value;

/** The effective body limit, timeouts, upstream keep-alive and forwarded headers of one location (nginx defaults filled in). */
export function locationSettings(config: NginxConfig, location: BlockScope): LocationSettings {
  const { chain } = location;
  const proxyPass = proxyPassOf(location.block);
  const target = parseProxyPassTarget(proxyPass?.args[0] ?? '');
  const group = target && !target.hasPort ? listUpstreams(config).get(target.host) : undefined;
  return {
    clientMaxBodySize: setting(chain, 'client_max_body_size', '1m', parseNginxSize),
    proxyConnectTimeout: setting(chain, 'proxy_connect_timeout', '60s', parseNginxTime),
    proxyReadTimeout: setting(chain, 'proxy_read_timeout', '60s', parseNginxTime),
    proxySendTimeout: setting(chain, 'proxy_send_timeout', '60s', parseNginxTime),
    proxyHttpVersion: setting(chain, 'proxy_http_version', '1.0', asIs),
    proxyHeaders: effectiveProxyHeaders(chain),
    proxyPass,
    upstream: group && {
      name: group.args[0] ?? '',
      block: group,
      keepalive: keepaliveOf(group),
      keepaliveTimeout: setting([group], 'keepalive_timeout', '60s', parseNginxTime),
    },
  };
}

function keepaliveOf(group: NginxDirective): number | undefined {
  const directive = childrenNamed(group, 'keepalive')[0];
  return directive ? Number(directive.args[0]) : undefined;
}
