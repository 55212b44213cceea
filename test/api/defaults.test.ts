import { describe, expect, it } from 'vitest';
import { API_DEFAULTS, API_OPTIONS, drainWaitMs, resolveApiConfig } from '../../api/defaults.js';
import { isProxyopsError } from '../../proxy-config/core/errors.js';

function failure(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isProxyopsError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('API settings', () => {
  it('every setting has a flag and an environment variable, each unique', () => {
    expect(new Set(API_OPTIONS.map((o) => o.key))).toEqual(new Set(Object.keys(API_DEFAULTS)));
    expect(new Set(API_OPTIONS.map((o) => o.flag)).size).toBe(API_OPTIONS.length);
    expect(new Set(API_OPTIONS.map((o) => o.env)).size).toBe(API_OPTIONS.length);
  });

  it('a flag wins over the environment, which wins over the default', () => {
    expect(resolveApiConfig({}, {}).bodyLimitBytes).toBe(API_DEFAULTS.bodyLimitBytes);
    expect(resolveApiConfig({}, { PROXYOPS_BODY_LIMIT: '1000' }).bodyLimitBytes).toBe(1000);
    expect(resolveApiConfig({ bodyLimit: '2000' }, { PROXYOPS_BODY_LIMIT: '1000' }).bodyLimitBytes).toBe(
      2000,
    );
    expect(resolveApiConfig({ host: '0.0.0.0' }, {}).host).toBe('0.0.0.0');
  });

  it('a bad value is BAD_OPTION naming the option and the value', () => {
    const bad = failure(() => resolveApiConfig({}, { PROXYOPS_RATE_LIMIT: 'lots' }));
    expect(bad.code).toBe('BAD_OPTION');
    expect(bad.message).toContain('PROXYOPS_RATE_LIMIT');
    expect(bad.message).toContain('"lots"');
    expect(failure(() => resolveApiConfig({ rateLimit: '0' }, {})).message).toContain('--rate-limit');
    const port = failure(() => resolveApiConfig({ port: '99999' }, {}));
    expect(port.code).toBe('BAD_OPTION');
    expect(port.message).toBe('--port "99999" must be at most 65535');
  });

  it('refuses a keep-alive timeout that does not outlive the proxy upstream keep-alive', () => {
    const error = failure(() => resolveApiConfig({ keepAliveMs: '60000', proxyKeepAliveMs: '60000' }, {}));
    expect(error.code).toBe('BAD_OPTION');
    expect(error.message).toContain('502');
    expect(API_DEFAULTS.keepAliveTimeoutMs).toBeGreaterThan(API_DEFAULTS.proxyKeepAliveTimeoutMs);
  });

  it('refuses a default page size above the maximum', () => {
    expect(failure(() => resolveApiConfig({ pageSize: '50', pageSizeMax: '10' }, {})).code).toBe(
      'BAD_OPTION',
    );
  });

  it('a delayed route is a path prefix, after a method or not, and needs a delay', () => {
    const env = { PROXYOPS_TEST_DELAY_MS: '50', PROXYOPS_TEST_DELAY_ROUTE: 'POST /orders' };
    expect(resolveApiConfig({}, env).testDelayRoute).toBe('POST /orders');
    expect(resolveApiConfig({ testDelayRoute: '/users' }, env).testDelayRoute).toBe('/users');
    const bad = failure(() => resolveApiConfig({ testDelayRoute: 'orders' }, env));
    expect(bad.code).toBe('BAD_OPTION');
    expect(bad.message).toContain('--test-delay-route "orders" must be a path prefix');
    const alone = failure(() => resolveApiConfig({}, { PROXYOPS_TEST_DELAY_ROUTE: '/orders' }));
    expect(alone.message).toBe('--test-delay-route needs --test-delay-ms above 0');
  });

  it('drain wait is health-check interval x failure threshold + margin', () => {
    const config = resolveApiConfig(
      { healthIntervalMs: '2000', healthThreshold: '4', drainMarginMs: '500' },
      {},
    );
    expect(drainWaitMs(config)).toBe(2000 * 4 + 500);
  });
});
