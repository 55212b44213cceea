/**
 * A `.gz` input that broke off: the whole lines before the damage are counted, the rest is lost. It is
 * kept in the statistics state beside the counts, so a partial count never passes for a whole one in
 * what is made of that state later (`--json`, `--state-out`, `logs merge`, `--host`).
 */
export interface LogDamage {
  input: string;
  /** Compressed bytes zlib had taken when the data stopped being gzip. */
  offset: number;
  /** Size of the `.gz` file. */
  size: number;
  reason: string;
  /** Lines of the input counted, all before the damage. */
  lines: number;
}

/** One line on a damaged `.gz` input: which, where, why, and what was counted of it. */
export function describeDamage(damage: LogDamage): string {
  return `${damage.input} is damaged at byte ${damage.offset} of ${damage.size} (${damage.reason}): its ${damage.lines} line(s) before that are counted, the rest could not be read`;
}
