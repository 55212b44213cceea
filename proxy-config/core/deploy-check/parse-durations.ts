const UNITS_MS: Record<string, number> = {
  us: 0.001,
  usec: 0.001,
  ms: 1,
  msec: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

/**
 * A duration written as number-unit pairs (`1min 30s`, `1m30s`, `500ms`, `90`): systemd time spans
 * and compose/Go durations alike; a bare number is in `bareUnit`. Undefined when it is not one.
 */
export function parseDurationMs(raw: string, bareUnit: 's' | 'ms' = 's'): number | undefined {
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * UNITS_MS[bareUnit]!);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)\s*/gi)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text.replace(/^\s+/, '')) return undefined;
  let ms = 0;
  for (const [, amount, unit] of parts) {
    const factor = UNITS_MS[unit!.toLowerCase()];
    if (factor === undefined) return undefined;
    ms += Number(amount) * factor;
  }
  return Math.round(ms);
}

/** `SIGTERM` from `TERM`, `sigterm` or `15`; undefined for anything else. */
export function normalizeSignal(raw: string): string | undefined {
  const text = raw.trim().toUpperCase();
  const byNumber: Record<string, string> = {
    '1': 'SIGHUP',
    '2': 'SIGINT',
    '3': 'SIGQUIT',
    '9': 'SIGKILL',
    '15': 'SIGTERM',
  };
  if (byNumber[text]) return byNumber[text];
  if (!/^(SIG)?[A-Z0-9+-]+$/.test(text)) return undefined;
  return text.startsWith('SIG') ? text : `SIG${text}`;
}
