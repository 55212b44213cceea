import { open } from 'node:fs/promises';
import { ProxyopsError } from '../core/errors.js';

/** How much of the end of a log diagnosis reads: recent entries are what an incident is about. */
export const LOG_TAIL_BYTES = 64 * 1024 * 1024;

/** The end of a file a user named, as text from its first whole line, and whether the start was left out. */
export interface FileTail {
  text: string;
  truncated: boolean;
}

/**
 * Reads at most the last `maxBytes` of a file the user named with `option`, starting at a line
 * boundary; BAD_OPTION naming the option when it cannot be read.
 */
export async function readFileTail(
  path: string,
  option: string,
  encoding: BufferEncoding,
  maxBytes = LOG_TAIL_BYTES,
): Promise<FileTail> {
  try {
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      const start = Math.max(0, size - maxBytes);
      const buffer = Buffer.alloc(size - start);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, start);
      let chunk = buffer.subarray(0, bytesRead);
      if (start > 0) chunk = chunk.subarray(chunk.indexOf(0x0a) + 1);
      return { text: chunk.toString(encoding), truncated: start > 0 };
    } finally {
      await file.close();
    }
  } catch (error) {
    throw new ProxyopsError(
      'BAD_OPTION',
      `cannot read ${option} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      { cause: error },
    );
  }
}
