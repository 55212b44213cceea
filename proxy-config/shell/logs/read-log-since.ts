import { open } from 'node:fs/promises';

/** Complete lines read from a log and the offset just after the last of them. */
export interface LogChunk {
  text: string;
  end: number;
}

/**
 * The complete lines of `path` from byte `start` on (a line still being written stays for the next
 * read), as latin1 so byte offsets and string offsets agree. An absent file reads as empty.
 */
export async function readLogSince(path: string, start: number): Promise<LogChunk> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return { text: '', end: start };
  try {
    const size = (await handle.stat()).size;
    if (size <= start) return { text: '', end: start };
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    const last = buffer.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (last < 0) return { text: '', end: start };
    return { text: buffer.subarray(0, last + 1).toString('latin1'), end: start + last + 1 };
  } finally {
    await handle.close();
  }
}

/** The complete lines in the `maxBytes` before `end` (the stretch of log before a deploy). */
export async function readLogBefore(path: string, end: number, maxBytes: number): Promise<string> {
  const start = Math.max(0, end - maxBytes);
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle || end <= start) {
    await handle?.close();
    return '';
  }
  try {
    const buffer = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    let text = buffer.subarray(0, bytesRead).toString('latin1');
    // A cut inside the file leaves a partial first line.
    if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    return text.slice(0, text.lastIndexOf('\n') + 1);
  } finally {
    await handle.close();
  }
}

/**
 * How much log before an apply or a deploy counts as "before": the last 1000 requests, whatever their
 * line length (a share of 5xx over 1000 requests is stable to about ±3 points), read backwards in
 * growing windows; the byte cap bounds memory when lines are huge.
 */
export const BASELINE_LINES = 1000;
export const BASELINE_MAX_BYTES = 16 * 1024 * 1024;

/** The last `count` complete lines before byte `end` (fewer when the file, or `maxBytes`, has fewer). */
export async function readLastLines(
  path: string,
  end: number,
  count = BASELINE_LINES,
  maxBytes = BASELINE_MAX_BYTES,
): Promise<string> {
  for (let window = Math.min(maxBytes, count * 512); ; window = Math.min(maxBytes, window * 4)) {
    const text = await readLogBefore(path, end, window);
    const lines = text.split('\n');
    lines.pop();
    if (lines.length >= count || window >= maxBytes || window >= end)
      return lines
        .slice(-count)
        .map((line) => `${line}\n`)
        .join('');
  }
}
