import { fileSize } from '../shell/logs/read-file-range.js';
import { readLastLines, readLogSince } from '../shell/logs/read-log-since.js';

/** Where each access log a deploy watches ends (one offset per nginx host). */
export type LogMark = readonly number[];

/**
 * The access logs a deploy watches: this machine's, or one per nginx host read there. The watch
 * judges them together: every nginx host sends requests to the new instance.
 */
export interface AccessLogs {
  end(): Promise<LogMark>;
  /** The complete lines written after `mark` in every log, and the mark after them. */
  since(mark: LogMark): Promise<{ text: string; end: LogMark }>;
  /** The last lines before now in every log: the gates' baseline. */
  baseline(): Promise<string>;
}

/** The access log of this machine. */
export function localAccessLogs(path: string): AccessLogs {
  return {
    end: async () => [await fileSize(path)],
    async since([from = 0]) {
      const chunk = await readLogSince(path, from);
      return { text: chunk.text, end: [chunk.end] };
    },
    baseline: async () => readLastLines(path, await fileSize(path)),
  };
}
