import { ProxyopsError } from '../errors.js';
import { parseLogTime } from './parse-log-time.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses a duration such as "500ms", "10s", "5m", "1h", "2d", or bare seconds ("30"). */
export function parseDuration(text: string, option: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m || Number(m[1]) <= 0)
    throw new ProxyopsError('BAD_OPTION', `${option}: "${text}" is not a duration like 10s, 5m or 1h`);
  return Math.round(Number(m[1]) * UNITS[m[2] ?? 's']!);
}

/**
 * Parses `--since`/`--until`: ISO 8601, nginx's time_local ("22/Nov/2026:02:24:03 +0000"), epoch
 * seconds, or a duration meaning that long before `nowMs` ("15m", "2h").
 */
export function parseTimeOption(text: string, option: string, nowMs: number): number {
  const t = text.trim();
  if (/^\d+(?:\.\d+)?(ms|s|m|h|d)$/.test(t)) return nowMs - parseDuration(t, option);
  if (/^\d{9,}(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const local = /^\d{2}\/[A-Z][a-z]{2}\/\d{4}:/.test(t) ? parseLogTime(t) : NaN;
  const value = Number.isNaN(local) ? Date.parse(t) : local;
  if (Number.isNaN(value))
    throw new ProxyopsError(
      'BAD_OPTION',
      `${option}: "${text}" is not a time (ISO 8601, nginx time_local, epoch seconds, or a duration like 15m)`,
    );
  return value;
}
