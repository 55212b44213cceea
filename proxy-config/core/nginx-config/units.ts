const TIME_UNITS_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  M: 2_592_000_000,
  y: 31_536_000_000,
};

/** Milliseconds of an nginx time value (`60`, `60s`, `1m30s`, `500ms`); undefined when it is not one. */
export function parseNginxTime(value: string): number | undefined {
  if (!/^(\d+(ms|s|m|h|d|w|M|y)?)+$/.test(value)) return undefined;
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/(\d+)(ms|s|m|h|d|w|M|y)?/g))
    total += Number(amount) * (TIME_UNITS_MS[unit ?? 's'] as number);
  return total;
}

/** Bytes of an nginx size value (`1m`, `512k`, `1024`, `2g`); undefined when it is not one. */
export function parseNginxSize(value: string): number | undefined {
  const match = /^(\d+)([kKmMgG]?)$/.exec(value);
  if (!match) return undefined;
  const unit = (match[2] ?? '').toLowerCase();
  const factor = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  return Number(match[1]) * factor;
}

/** A duration in milliseconds written back the way nginx configs usually say it (`90s`, `500ms`). */
export function formatNginxTime(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
