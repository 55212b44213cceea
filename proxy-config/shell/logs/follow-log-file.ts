import { openLogReader, type LogReaderOptions } from './log-reader.js';

/** How a followed file is watched. */
export interface FollowOptions extends LogReaderOptions {
  /** How often the file is checked, in ms. */
  pollMs?: number;
}

/** A running follow; `stop()` reads what is left and closes every descriptor. */
export interface FollowHandle {
  stop(): void;
}

/**
 * Follows an access log across rotation and truncation without losing or repeating a line (see
 * `openLogReader`, which a deploy's watch pulls the same way). `onText` receives byte strings
 * (latin1) of whole lines.
 */
export function followLogFile(
  path: string,
  onText: (bytes: string) => void,
  options: FollowOptions = {},
): FollowHandle {
  const reader = openLogReader(path, options);
  const pass = (text: string) => {
    if (text !== '') onText(text);
  };
  if (options.fromStart) pass(reader.read());
  const timer = setInterval(() => pass(reader.read()), options.pollMs ?? 250);
  return {
    stop() {
      clearInterval(timer);
      pass(reader.close());
    },
  };
}
