import { createLogTape, type LogTape } from '../core/logs/log-tape.js';
import { fileSize } from '../shell/logs/read-file-range.js';
import { openLogReader, type LogReader } from '../shell/logs/log-reader.js';
import { readLastLines } from '../shell/logs/read-log-since.js';

/** Where each access log a deploy watches ends (one mark per nginx host, see `LogTape`). */
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
  /** Closes what reads the logs here (the deploy is over). */
  close(): void;
}

/** One access log read by descriptor across rotation, with marks over it: a deploy's, here or on a far nginx host. */
export interface FollowedLog extends LogTape {
  close(): void;
}

/** Opened at the end of the log as it is now: a deploy reads what is written after it began. */
export function followedLog(path: string): FollowedLog {
  const reader: LogReader = openLogReader(path);
  return { ...createLogTape(() => reader.read()), close: () => void reader.close() };
}

/** The access log of this machine. */
export function localAccessLogs(path: string): AccessLogs {
  let log: FollowedLog | undefined;
  const opened = () => (log ??= followedLog(path));
  return {
    end: async () => [opened().end()],
    async since([from = 0]) {
      const chunk = opened().since(from);
      return { text: chunk.text, end: [chunk.end] };
    },
    baseline: async () => readLastLines(path, await fileSize(path)),
    close() {
      log?.close();
      log = undefined;
    },
  };
}
