import type { ApiConfig } from '../defaults.js';

/**
 * Where the API's absolute links point: the configured public base URL when set, else the scheme
 * and host the request arrived with (X-Forwarded-* only from a trusted proxy, which validates them).
 */
export function linkBase(config: Pick<ApiConfig, 'publicBaseUrl'>, protocol: string, host: string): string {
  return config.publicBaseUrl || `${protocol}://${host}`;
}
