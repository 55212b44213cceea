import { formatProgress, PROGRESS_AFTER_MS } from '../../core/logs/format-progress.js';

/** Redrawn at most this often: a terminal needs no more, and a slow one would fall behind. */
const REDRAW_MS = 250;

/** The one progress line of a long run on a terminal's stderr: drawn over itself, cleared at the end. */
export interface ProgressLine {
  update(read: number, total: number): void;
  /** Removes the line, when one was drawn, so that what follows starts on a clean line. */
  clear(): void;
}

/**
 * A progress line on `stream`, which the caller has checked is a terminal: nothing is drawn before
 * the run has taken PROGRESS_AFTER_MS, so a short run shows nothing at all.
 */
export function createProgressLine(
  stream: { write(text: string): unknown },
  now: () => number = Date.now,
): ProgressLine {
  const start = now();
  let drawnAt = -Infinity;
  return {
    update(read, total) {
      const at = now();
      if (at - start < PROGRESS_AFTER_MS || at - drawnAt < REDRAW_MS) return;
      drawnAt = at;
      stream.write(`\r${formatProgress({ read, total, elapsedMs: at - start })}\x1b[K`);
    },
    clear() {
      if (drawnAt > -Infinity) stream.write('\r\x1b[K');
    },
  };
}
