/** The proxyops release (package.json's `version`; a test keeps the two equal). */
export const PROXYOPS_VERSION = '0.1.0';

/** Headers every live probe carries, so the server's logs (and log diagnosis) can tell probes from users. */
export const PROBE_HEADERS = {
  'user-agent': `proxyops-probe/${PROXYOPS_VERSION}`,
  'x-proxyops-probe': '1',
} as const;
