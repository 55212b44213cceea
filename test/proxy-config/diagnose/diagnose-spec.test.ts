import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'proxy-config', 'examples', 'api-front.yaml');

describe('diagnose --spec', () => {
  it('reads the config the spec renders to, which keeps upstream connections alive and forwards the scheme', async () => {
    for (const symptom of ['502', 'redirect-loop', 'trailing-slash'] as const) {
      const result = await diagnose({ symptom, spec: EXAMPLE });
      expect(result.sources[0]).toMatch(
        /^config .*api-front\.yaml \(rendered nginx\.conf\) \([1-9]\d* locations\)$/,
      );
      expect(
        result.findings.filter((finding) => finding.evidence.some((line) => line.startsWith('config:'))),
      ).toEqual([]);
    }
  });

  it('refuses a spec that cannot be read, and --config with --spec', async () => {
    const missing = await diagnose({ symptom: '502', spec: '/nonexistent/spec.yaml' }).catch(
      (error: unknown) => error,
    );
    expect(isProxyopsError(missing)).toBe(true);
    const both = await diagnose({ symptom: '502', spec: EXAMPLE, config: EXAMPLE }).catch(
      (error: unknown) => error,
    );
    expect(both).toMatchObject({ code: 'BAD_OPTION', message: 'give --config or --spec, not both' });
  });
});
