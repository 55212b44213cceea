/**
 * Marks over a log pulled as a stream of whole lines (a reader that follows the file across rotation):
 * a mark counts the bytes pulled before it, so it stays valid when the file is moved or truncated,
 * where a byte offset into the file does not. Rounds of a batch hold marks at once, and a mark may be
 * read from again later (the drain after a signal), so the tape keeps the text after the marks
 * handed out, up to `maxBytes`: a mark older than that reads from the oldest line still kept.
 */
export interface LogTape {
  /** The mark after everything written so far. */
  end(): number;
  /** The whole lines written after `mark`, and the mark after them. */
  since(mark: number): { text: string; end: number };
}

/** Enough for the drain and the watches of a batch at thousands of requests a second. */
export const TAPE_MAX_BYTES = 64 * 1024 * 1024;

export function createLogTape(pull: () => string, maxBytes = TAPE_MAX_BYTES): LogTape {
  /** The mark of the first byte of `kept`. */
  let base = 0;
  let kept = '';
  const advance = (): number => {
    kept += pull();
    if (kept.length > maxBytes) {
      // Cut at a line's start: a mark always falls between lines.
      const cut = kept.indexOf('\n', kept.length - maxBytes - 1) + 1;
      base += cut;
      kept = kept.slice(cut);
    }
    return base + kept.length;
  };
  return {
    end: advance,
    since(mark) {
      const end = advance();
      return { text: kept.slice(Math.max(0, mark - base)), end };
    },
  };
}
