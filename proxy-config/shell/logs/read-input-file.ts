import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { ProxyopsError } from '../../core/errors.js';
import { describeErrno, describeFileKind } from '../describe-path.js';

/** How much of the end of a log diagnosis reads: recent entries are what an incident is about. */
export const LOG_TAIL_BYTES = 64 * 1024 * 1024;

/** The end of a file a user named, as text from its first whole line, and whether the start was left out. */
export interface FileTail {
  text: string;
  truncated: boolean;
}

/**
 * Builds the error a caller reports for an input it cannot read; `reason` is the errno code and its
 * description (`ENOENT: no such file or directory`) or what the path is instead of a file.
 */
export type Unreadable = (reason: string, cause?: unknown) => Error;

/**
 * Opens a file the user named as input. Anything but a regular file is refused: reading a FIFO
 * or a terminal blocks until someone writes, a device may never end. O_NONBLOCK keeps the open
 * itself from waiting for a FIFO's writer; on a regular file it changes nothing.
 */
export async function openInputFile(path: string, unreadable: Unreadable): Promise<FileHandle> {
  let file: FileHandle;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw unreadable(describeErrno(error), error);
  }
  let stats: Stats;
  try {
    stats = await file.stat();
  } catch (error) {
    await file.close();
    throw unreadable(describeErrno(error), error);
  }
  if (!stats.isFile()) {
    await file.close();
    throw unreadable(`not a regular file (${describeFileKind(stats)})`);
  }
  return file;
}

/** The whole of a regular file the user named (see openInputFile). */
export async function readInputFile(path: string, unreadable: Unreadable): Promise<Buffer> {
  const file = await openInputFile(path, unreadable);
  try {
    return await file.readFile();
  } catch (error) {
    throw unreadable(describeErrno(error), error);
  } finally {
    await file.close();
  }
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
  const unreadable: Unreadable = (reason, cause) =>
    new ProxyopsError('BAD_OPTION', `cannot read ${option} ${path}: ${reason}`, { cause });
  const file = await openInputFile(path, unreadable);
  try {
    const { size } = await file.stat();
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, start);
    let chunk = buffer.subarray(0, bytesRead);
    if (start > 0) chunk = chunk.subarray(chunk.indexOf(0x0a) + 1);
    return { text: chunk.toString(encoding), truncated: start > 0 };
  } catch (error) {
    throw unreadable(describeErrno(error), error);
  } finally {
    await file.close();
  }
}
