import { lineBody, splitKeepingEnds } from './text-lines.js';
import type { NginxTree } from './tree.js';

/** The comment that marks a line proxyops added, naming the server it pairs. */
export const ALTERNATE_MARK = '# proxyops: alternate of';

/** True when a line is one proxyops added (it ends with the mark and the partner's address). */
export function isAlternateLine(line: string): boolean {
  return new RegExp(`${ALTERNATE_MARK} \\S+\\s*$`).test(lineBody(line));
}

/**
 * Every line of the tree that carries proxyops' mark, as `FILE:LINE`: with no adoption record in
 * the state directory these lines say the record is elsewhere (another --target or nginx.state).
 */
export function alternateLinesOf(tree: NginxTree): string[] {
  return [...tree.files].flatMap(([file, text]) =>
    splitKeepingEnds(text).flatMap((line, i) => (isAlternateLine(line) ? [`${file}:${i + 1}`] : [])),
  );
}
