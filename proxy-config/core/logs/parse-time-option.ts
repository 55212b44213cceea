import { ProxyopsError } from '../errors.js';
import { MONTHS } from './parse-log-time.js';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Bounds a duration option must fall within, in ms (inclusive). */
export interface DurationBounds {
  minMs: number;
  maxMs: number;
}

/**
 * `--interval` of `logs stats`: below 100 ms a --follow run writes summaries as fast as it can, and a
 * timer longer than setInterval's 24.8-day limit fires at once, again and again. A day is the longest
 * period anyone watches and, as a timeline bucket, still gives a point per day.
 */
export const INTERVAL_BOUNDS: DurationBounds = { minMs: 100, maxMs: 86_400_000 };

/** Parses a duration such as "500ms", "10s", "5m", "1h", "2d", or bare seconds ("30"). */
export function parseDuration(text: string, option: string, bounds?: DurationBounds): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m || Number(m[1]) <= 0)
    throw new ProxyopsError('BAD_OPTION', `${option}: "${text}" is not a duration like 10s, 5m or 1h`);
  const ms = Math.round(Number(m[1]) * UNITS[m[2] ?? 's']!);
  if (bounds && !(ms >= bounds.minMs && ms <= bounds.maxMs))
    throw new ProxyopsError(
      'BAD_OPTION',
      `${option}: "${text}" is out of range (${formatMs(bounds.minMs)} to ${formatMs(bounds.maxMs)})`,
    );
  return ms;
}

function formatMs(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'])
    if (ms >= UNITS[unit]! && ms % UNITS[unit]! === 0) return `${ms / UNITS[unit]!}${unit}`;
  return `${ms}ms`;
}

/** The last millisecond of year 9999: later times, and times before 1970, are typos, not log times. */
const MAX_TIME_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const LOCAL = /^(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-]\d{2})(\d{2})$/;
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/**
 * Parses `--since`/`--until`: ISO 8601, nginx's time_local ("22/Nov/2026:02:24:03 +0000"), epoch
 * seconds, or a duration meaning that long before `nowMs` ("15m", "2h"). An impossible date, hour or
 * offset is refused: Date.parse would roll 30 Feb over into March.
 */
export function parseTimeOption(text: string, option: string, nowMs: number): number {
  const t = text.trim();
  const value = readTimeOption(t, option, nowMs);
  if (Number.isNaN(value))
    throw new ProxyopsError(
      'BAD_OPTION',
      `${option}: "${text}" is not a time (ISO 8601, nginx time_local, epoch seconds, or a duration like 15m)`,
    );
  if (!(value >= 0 && value <= MAX_TIME_MS))
    throw new ProxyopsError('BAD_OPTION', `${option}: "${text}" is not between 1970 and 9999`);
  return value;
}

/**
 * A `--since`/`--until` for the proxyops on another host: a duration ("15m") becomes the instant it
 * means here (ISO 8601 in UTC), so every host counts from the same one whatever its clock says. Any
 * other form is checked here and passed as given: an ISO time without a zone is the host's local time,
 * and turning it into an instant here would read it in this machine's zone instead.
 */
export function timeOptionForHost(text: string, option: string, nowMs: number): string {
  const value = parseTimeOption(text, option, nowMs);
  return DURATION.test(text.trim()) ? new Date(value).toISOString() : text;
}

const DURATION = /^\d+(?:\.\d+)?(ms|s|m|h|d)$/;

function readTimeOption(t: string, option: string, nowMs: number): number {
  if (DURATION.test(t)) return nowMs - parseDuration(t, option);
  if (/^\d{9,}(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  const local = LOCAL.exec(t);
  if (local) {
    const [, d, mon, y, h, mi, s, offH, offM] = local;
    const month = MONTHS[mon!];
    if (month === undefined) return NaN;
    return fromParts(+y!, month, +d!, +h!, +mi!, +s!, 0, offsetMinutes(offH!, offM!));
  }
  const iso = ISO.exec(t);
  if (!iso) return NaN;
  const [, y, mo, d, h, mi, s, frac, zone] = iso;
  // Without a zone a date-time is local time (as in Date.parse and ECMAScript); a bare date is UTC.
  const offset =
    zone === undefined
      ? h === undefined
        ? 0
        : null
      : zone.toUpperCase() === 'Z'
        ? 0
        : offsetMinutes(zone.slice(0, 3), zone.slice(3).replace(':', '') || '00');
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  return fromParts(+y!, +mo! - 1, +d!, +(h ?? 0), +(mi ?? 0), +(s ?? 0), ms, offset);
}

function offsetMinutes(hours: string, minutes: string): number {
  const h = Number(hours.slice(1));
  const m = Number(minutes);
  // Real zones lie within -12:00..+14:00; anything past that is a typo such as +9999.
  if (minutes.length !== 2 || h > 14 || m > 59 || (h === 14 && m > 0)) return NaN;
  return (hours[0] === '-' ? -1 : 1) * (h * 60 + m);
}

/** Epoch ms of the parts, or NaN when any is out of range; `offset` null means local time. */
function fromParts(
  y: number,
  month: number,
  d: number,
  h: number,
  mi: number,
  s: number,
  ms: number,
  offset: number | null,
): number {
  if (Number.isNaN(offset) || month < 0 || month > 11 || h > 23 || mi > 59 || s > 59) return NaN;
  const days = new Date(Date.UTC(y, month + 1, 0)).getUTCDate();
  if (d < 1 || d > days) return NaN;
  if (offset === null) return new Date(y, month, d, h, mi, s, ms).getTime();
  return Date.UTC(y, month, d, h, mi, s, ms) - offset * 60_000;
}
