import { open, stat } from 'node:fs/promises';

/** Size of a file in bytes; 0 when it does not exist. */
export async function fileSize(path: string): Promise<number> {
  return (await stat(path).catch(() => undefined))?.size ?? 0;
}

/** Bytes from `start` (inclusive) to `end` (exclusive, default: end of file) as UTF-8 text. */
export async function readFileRange(path: string, start: number, end?: number): Promise<string> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return '';
  try {
    const stop = end ?? (await handle.stat()).size;
    if (stop <= start) return '';
    const buffer = Buffer.alloc(stop - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
