import { open } from 'node:fs/promises';

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
