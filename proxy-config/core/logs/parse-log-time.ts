/** Which nginx time variable a format carries. */
export type LogTimeKind = 'time_local' | 'time_iso8601' | 'msec';

/** Reads a time value at `[a, b)` of a byte string into epoch milliseconds (NaN when unreadable). */
export type LogTimeReader = (s: string, a: number, b: number) => number;

/** Month numbers (0-based) of nginx's time_local abbreviations. */
export const MONTHS: Readonly<Record<string, number>> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

function digits(s: string, a: number, n: number): number {
  let v = 0;
  for (let i = a; i < a + n; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return v;
}

/** Offset in minutes of `+hhmm` / `+hh:mm` at `a`. */
function zoneMinutes(s: string, a: number, colon: boolean): number {
  const sign = s[a] === '-' ? -1 : s[a] === '+' ? 1 : NaN;
  const hh = digits(s, a + 1, 2);
  const mm = digits(s, a + (colon ? 4 : 3), 2);
  return sign * (hh * 60 + mm);
}

/**
 * Creates a reader for one time variable. Lines of one minute share a prefix, so the reader keeps the
 * last minute it decoded and only parses the seconds when the prefix repeats.
 */
export function createLogTimeReader(kind: LogTimeKind): LogTimeReader {
  if (kind === 'msec') return readMsec;
  const local = kind === 'time_local';
  // time_local: 22/Nov/2026:02:24:03 +0000   time_iso8601: 2026-11-22T02:24:03+00:00
  const length = local ? 26 : 25;
  const minuteLength = local ? 17 : 16;
  const secondAt = local ? 18 : 17;
  const zoneAt = local ? 21 : 19;
  let key = '';
  let zone = '';
  let minuteMs = NaN;
  return (s, a, b) => {
    if (b - a !== length) return NaN;
    if (key === '' || !s.startsWith(key, a) || !s.startsWith(zone, a + zoneAt)) {
      const parsed = local ? parseLocalMinute(s, a) : parseIsoMinute(s, a);
      if (Number.isNaN(parsed)) return NaN;
      key = s.slice(a, a + minuteLength);
      zone = s.slice(a + zoneAt, b);
      minuteMs = parsed;
    }
    const sec = digits(s, a + secondAt, 2);
    return sec < 61 ? minuteMs + sec * 1000 : NaN;
  };
}

function parseLocalMinute(s: string, a: number): number {
  if (s[a + 2] !== '/' || s[a + 6] !== '/' || s[a + 11] !== ':' || s[a + 20] !== ' ') return NaN;
  const month = MONTHS[s.slice(a + 3, a + 6)];
  if (month === undefined) return NaN;
  const utc = Date.UTC(
    digits(s, a + 7, 4),
    month,
    digits(s, a, 2),
    digits(s, a + 12, 2),
    digits(s, a + 15, 2),
  );
  return utc - zoneMinutes(s, a + 21, false) * 60_000;
}

function parseIsoMinute(s: string, a: number): number {
  if (s[a + 4] !== '-' || s[a + 7] !== '-' || s[a + 10] !== 'T' || s[a + 13] !== ':') return NaN;
  const utc = Date.UTC(
    digits(s, a, 4),
    digits(s, a + 5, 2) - 1,
    digits(s, a + 8, 2),
    digits(s, a + 11, 2),
    digits(s, a + 14, 2),
  );
  return utc - zoneMinutes(s, a + 19, true) * 60_000;
}

function readMsec(s: string, a: number, b: number): number {
  const v = Number(s.slice(a, b));
  return b > a && Number.isFinite(v) ? Math.round(v * 1000) : NaN;
}

/** Parses any of the three nginx time forms in ordinary text (JSON lines, parsed records). */
export function parseLogTime(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) return readMsec(text, 0, text.length);
  const kind: LogTimeKind = text[2] === '/' ? 'time_local' : 'time_iso8601';
  return createLogTimeReader(kind)(text, 0, text.length);
}
