import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeFor } from '../../cli/exit-codes.js';

describe('exit codes', () => {
  it('bad input exits 2: an invalid spec, a bad option, an unreadable log or config', () => {
    for (const code of ['USAGE', 'SPEC_INVALID', 'BAD_OPTION', 'LOG_UNREADABLE', 'NGINX_CONFIG_UNREADABLE']) {
      expect(exitCodeFor(code), code).toBe(EXIT.usage);
    }
  });

  it('a target, output directory or instance record that is not what it must be exits 2', () => {
    for (const code of ['TARGET_INVALID', 'OUTPUT_UNWRITABLE', 'STATE_UNREADABLE']) {
      expect(exitCodeFor(code), code).toBe(EXIT.usage);
    }
  });

  it('a refused setting from the environment (a short JWT secret in production) exits 2', () => {
    expect(exitCodeFor('CONFIG_INVALID')).toBe(EXIT.usage);
  });

  it('a failed operation exits 1', () => {
    for (const code of ['NGINX_TEST_FAILED', 'RELOAD_FAILED', 'PROBE_FAILED']) {
      expect(exitCodeFor(code), code).toBe(EXIT.failed);
    }
  });
});
