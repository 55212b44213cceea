import { setTimeout as sleep } from 'node:timers/promises';
import { countStatusCodes, type StatusDistribution } from '../core/apply/status-distribution.js';
import { fileSize, readFileRange } from '../shell/logs/read-file-range.js';
import { readLastLines } from '../shell/logs/read-log-since.js';

/** Early rollback needs this many requests; the end of the window decides on any number. */
const EARLY_DECISION_REQUESTS = 20;

/** The status distribution of the last 1000 lines written before `offset` (BASELINE_LINES). */
export async function readStatusesBefore(accessLog: string, offset: number): Promise<StatusDistribution> {
  return countStatusCodes(completeLines(await readLastLines(accessLog, offset)));
}

/** Result of watching an access log after an apply. */
export interface WatchResult {
  after: StatusDistribution;
  /** Set when the 5xx share rose above the threshold. */
  exceeded: boolean;
  seconds: number;
}

/**
 * Reads what the access log gains from `offset` for `seconds`, once a second; with a threshold,
 * stops early once enough requests show a 5xx share above it.
 */
export async function watchStatusCodes(options: {
  accessLog: string;
  offset: number;
  seconds: number;
  rollbackAbove?: number;
  onTick?: (distribution: StatusDistribution, elapsed: number) => void;
}): Promise<WatchResult> {
  const started = Date.now();
  const exceeds = (d: StatusDistribution, minimum: number) =>
    options.rollbackAbove !== undefined && d.total >= minimum && d.share5xx > options.rollbackAbove;
  let after = countStatusCodes([]);
  for (;;) {
    const elapsed = (Date.now() - started) / 1000;
    const remaining = options.seconds - elapsed;
    await sleep(Math.max(0, Math.min(1000, remaining * 1000)));
    const end = await fileSize(options.accessLog);
    after = countStatusCodes(completeLines(await readFileRange(options.accessLog, options.offset, end)));
    const now = (Date.now() - started) / 1000;
    options.onTick?.(after, now);
    if (exceeds(after, EARLY_DECISION_REQUESTS)) return { after, exceeded: true, seconds: now };
    if (now >= options.seconds) return { after, exceeded: exceeds(after, 1), seconds: now };
  }
}

function completeLines(text: string): string[] {
  const lines = text.split('\n');
  lines.pop();
  return lines;
}
