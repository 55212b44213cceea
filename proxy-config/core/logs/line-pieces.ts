/**
 * Turns chunks of bytes into byte strings (latin1, one char per byte) of whole lines. The pieces of
 * a line longer than one chunk are kept in a list and joined once when its newline comes: joining
 * them chunk by chunk copied a 50 MB line thousands of times over.
 */
export interface LinePieces {
  /** The lines `chunk` completes, with their newlines; undefined when none ends in it. */
  push(chunk: Buffer): string | undefined;
  /** What is left: a last line without its newline, or undefined. */
  end(): string | undefined;
  /** Forgets a partial line (its file was truncated). */
  reset(): void;
}

/** `reusesChunks`: the caller reads into the same buffer again, so a kept piece must be a copy. */
export function createLinePieces({ reusesChunks }: { reusesChunks: boolean }): LinePieces {
  let pending: Buffer[] = [];
  const keep = (bytes: Buffer) => (reusesChunks ? Buffer.from(bytes) : bytes);
  return {
    push(chunk) {
      const lastNl = chunk.lastIndexOf(10);
      if (lastNl < 0) {
        if (chunk.length > 0) pending.push(keep(chunk));
        return undefined;
      }
      let text: string;
      if (pending.length === 0) text = chunk.toString('latin1', 0, lastNl + 1);
      else {
        pending.push(chunk.subarray(0, lastNl + 1));
        text = Buffer.concat(pending).toString('latin1');
      }
      pending = lastNl + 1 < chunk.length ? [keep(chunk.subarray(lastNl + 1))] : [];
      return text;
    },
    end() {
      if (pending.length === 0) return undefined;
      const text = Buffer.concat(pending).toString('latin1');
      pending = [];
      return text;
    },
    reset() {
      pending = [];
    },
  };
}
