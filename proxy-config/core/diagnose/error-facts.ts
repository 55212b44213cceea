import type { ClassifiedErrorLine } from './classify-error-log.js';
import type { ErrorLogKind } from './error-log-patterns.js';
import type { Evidence } from './evidence.js';

/** The classified error-log lines of the given kinds. */
export function errorsOf(evidence: Evidence, kinds: readonly ErrorLogKind[]): ClassifiedErrorLine[] {
  return evidence.errors?.lines.filter((line) => kinds.includes(line.kind)) ?? [];
}

const MAX_LINE = 240;

/** Evidence lines for a group of error-log lines: the count, the time span and the latest line itself. */
export function describeErrors(lines: readonly ClassifiedErrorLine[], what: string): string[] {
  if (lines.length === 0) return [];
  const times = lines.map((line) => line.time).filter((time): time is Date => time !== null);
  const first = times[0]?.toTimeString().slice(0, 8);
  const last = times.at(-1)?.toTimeString().slice(0, 8);
  const span = first === undefined ? '' : first === last ? `, at ${first}` : `, ${first}–${last}`;
  const upstreams = [...new Set(lines.map((line) => line.upstream).filter((u): u is string => u !== null))];
  const towards = upstreams.length > 0 ? ` towards ${upstreams.slice(0, 3).join(', ')}` : '';
  const latest = lines.at(-1)?.line ?? '';
  return [
    `error log: ${lines.length} × ${what}${towards}${span}`,
    `  ${latest.length > MAX_LINE ? `${latest.slice(0, MAX_LINE)}…` : latest}`,
  ];
}
