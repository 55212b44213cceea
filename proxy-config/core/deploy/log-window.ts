import type { StatusDistribution } from '../apply/status-distribution.js';
import { createLineFacts } from '../logs/line-facts.js';
import type { LogReaderKit } from '../logs/log-format-presets.js';

/** Requests one upstream address got in a stretch of access log. */
export interface AddressCount {
  total: number;
  fivexx: number;
  /** Requests answered 502 (with the API behind it, only nginx answers 502: it could not use the address). */
  badGateway: number;
  /** Requests that surely started inside the window: their request time is below `freshBelowMs`. */
  fresh: number;
}

/** What a stretch of access log says about a deploy step. */
export interface LogWindow {
  distribution: StatusDistribution;
  /** Per upstream address; a retried request counts once for every address it tried. */
  byAddress: Record<string, AddressCount>;
  /** Lines the format did not match. */
  skipped: number;
  /** 99th percentile of the request times logged (ms; 0 without any). */
  p99Ms: number;
}

/**
 * Reads complete access-log lines with the log parser. A request logged in the window with a request
 * time below `freshBelowMs` (the time between a reload and the start of the window) began after the
 * reload, so it counts as `fresh` for every address it reached.
 */
export function summarizeLogWindow(kit: LogReaderKit, text: string, freshBelowMs = 0): LogWindow {
  const { read } = kit.createReader();
  const facts = createLineFacts();
  const byStatus: Record<string, number> = {};
  const byAddress: Record<string, AddressCount> = {};
  let total = 0;
  let fivexx = 0;
  let skipped = 0;
  const times: number[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) {
      if (!read(text, start, end, facts)) skipped++;
      else {
        const status = String(facts.status).padStart(3, '0');
        byStatus[status] = (byStatus[status] ?? 0) + 1;
        total++;
        const is5xx = facts.status >= 500 && facts.status <= 599;
        if (is5xx) fivexx++;
        if (facts.requestTimeMs >= 0) times.push(facts.requestTimeMs);
        const fresh = facts.requestTimeMs >= 0 && facts.requestTimeMs < freshBelowMs;
        for (let k = 0; k < facts.attempts; k++) {
          const address = facts.addr[k]!;
          const count = (byAddress[address] ??= { total: 0, fivexx: 0, badGateway: 0, fresh: 0 });
          count.total++;
          if (is5xx) count.fivexx++;
          if (facts.status === 502) count.badGateway++;
          if (fresh) count.fresh++;
        }
      }
    }
    start = end + 1;
  }
  return {
    distribution: { total, byStatus, share5xx: total === 0 ? 0 : fivexx / total },
    byAddress,
    skipped,
    p99Ms:
      times.length === 0
        ? 0
        : times.sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * 0.99))]!,
  };
}
