import { bisectBodyLimits } from '../../core/diagnose/bisect-body-limits.js';
import { isProxyopsError } from '../../core/errors.js';
import type { ProbeAnswer, ProbeEvidence } from '../../core/diagnose/evidence.js';
import { probeOnce } from './http-probe.js';

/** Bounds of the body-size search: nginx's default limit is 1 MiB, so 8 MiB finds common limits. */
export const BODY_PROBE_MAX_BYTES = 8 * 1024 * 1024;
export const BODY_PROBE_MAX_REQUESTS = 60;

const NO_ANSWER = { status: 0, server: null, nginxPage: false };

/** What to probe at a URL. */
export interface ProbePlan {
  url: string;
  bodyLimits: boolean;
  insecure?: boolean;
  timeoutMs?: number;
}

/** GET and HEAD the URL, and bisect its body limits when asked; failures are kept as evidence lines. */
export async function probeUrl(plan: ProbePlan): Promise<ProbeEvidence> {
  const failures: string[] = [];
  const attempt = async (run: () => Promise<ProbeAnswer>): Promise<ProbeAnswer | null> => {
    try {
      return await run();
    } catch (error) {
      if (!isProxyopsError(error)) throw error;
      failures.push(error.message);
      return null;
    }
  };
  const common = { insecure: plan.insecure, timeoutMs: plan.timeoutMs };
  const get = await attempt(() => probeOnce(plan.url, { ...common, method: 'GET' }));
  const head = await attempt(() => probeOnce(plan.url, { ...common, method: 'HEAD' }));
  let bodyLimits: ProbeEvidence['bodyLimits'] = null;
  if (plan.bodyLimits) {
    try {
      const found = await bisectBodyLimits(
        (size) =>
          probeOnce(plan.url, { ...common, method: 'POST', bodyBytes: size }).catch((error: unknown) => {
            if (!isProxyopsError(error)) throw error;
            return NO_ANSWER;
          }),
        { maxBytes: BODY_PROBE_MAX_BYTES, maxRequests: BODY_PROBE_MAX_REQUESTS },
      );
      bodyLimits = { ...found, maxTried: BODY_PROBE_MAX_BYTES };
    } catch (error) {
      if (!isProxyopsError(error)) throw error;
      failures.push(error.message);
    }
  }
  return { url: plan.url, get, head, bodyLimits, failures };
}
