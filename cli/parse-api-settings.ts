import { API_OPTIONS, resolveApiConfig } from '../api/defaults.js';
import { ProxyopsError } from '../proxy-config/core/errors.js';

/** Settings proxyops sets on every instance from the spec or the slot: never given by hand. */
const SET_BY_PROXYOPS = new Set([
  'PROXYOPS_HOST',
  'PROXYOPS_PORT',
  'PROXYOPS_SOCKET',
  'PROXYOPS_INSTANCE_NAME',
  'PROXYOPS_HEALTH_INTERVAL_MS',
  'PROXYOPS_HEALTH_THRESHOLD',
  'PROXYOPS_DRAIN_MARGIN_MS',
  'PROXYOPS_KEEP_ALIVE_MS',
  'PROXYOPS_PROXY_KEEP_ALIVE_MS',
]);

/**
 * `NAME=VALUE` pairs (`up --api-env`, `deploy --env`) as the environment of the API instances: NAME
 * is a setting's variable (PROXYOPS_RATE_LIMIT) or flag (--rate-limit), VALUE is checked as
 * `proxyops api` would. BAD_OPTION (exit 2) names the pair otherwise.
 */
export function parseApiSettings(flag: string, pairs: string[]): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const name = at < 0 ? '' : pair.slice(0, at);
    const option = API_OPTIONS.find((o) => o.env === name || o.flag === name);
    if (!option)
      throw new ProxyopsError(
        'BAD_OPTION',
        `${flag} ${JSON.stringify(pair)}: expected NAME=VALUE with NAME one of the API's settings (e.g. PROXYOPS_RATE_LIMIT=600; see proxyops api --help)`,
      );
    if (SET_BY_PROXYOPS.has(option.env))
      throw new ProxyopsError(
        'BAD_OPTION',
        `${flag} ${JSON.stringify(pair)}: ${option.env} is set by proxyops from the spec (its address and name, health check and keep-alive)`,
      );
    settings[option.env] = pair.slice(at + 1);
  }
  resolveApiConfig({}, settings);
  return settings;
}
