/**
 * A file's lines with their own endings kept (`\n`, `\r\n`, or none on a last line without a
 * final newline): joining them gives back the exact bytes, so edits touch only the lines they mean.
 */
export function splitKeepingEnds(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** A line without its ending. */
export function lineBody(line: string): string {
  return line.replace(/\r?\n$/, '');
}

/** The ending of a line, '' for a last line without a final newline. */
export function lineEnding(line: string): string {
  return /\r?\n$/.exec(line)?.[0] ?? '';
}

/** The ending the file uses: CRLF when any line has it (a Windows-edited file), else LF. */
export function fileEnding(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** The whole lines `first`..`last` (1-based, inclusive) of a text, endings kept. */
export function linesOf(text: string, first: number, last: number): string {
  return splitKeepingEnds(text)
    .slice(first - 1, last)
    .join('');
}

/** The text with lines `first`..`last` (1-based, inclusive) replaced by `replacement` (whole lines). */
export function replaceLines(text: string, first: number, last: number, replacement: string): string {
  const lines = splitKeepingEnds(text);
  return [...lines.slice(0, first - 1), replacement, ...lines.slice(last)].join('');
}
