import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { link, rm, stat, unlink } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { ProxyopsError } from '../../core/errors.js';
import { toRotatedPath } from '../../core/rotate/rotated-name.js';

/**
 * Moves a log aside without ever overwriting: a hard link to the new name, then the old name is
 * removed. Processes writing to it keep writing to the same inode under the new name.
 */
export async function moveLogAside(log: string, now: Date): Promise<string> {
  const target = toRotatedPath(log, now, (path) => existsSync(path));
  try {
    await link(log, target);
    await unlink(log);
  } catch (error) {
    throw new ProxyopsError(
      'ROTATE_MOVE_FAILED',
      `cannot move ${log} to ${target}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return target;
}

/** Gzips a file to FILE.gz (through a temporary name) and removes the original only once that succeeded. */
export async function gzipFile(path: string): Promise<string> {
  const target = `${path}.gz`;
  const partial = `${target}.partial`;
  try {
    await pipeline(createReadStream(path), createGzip(), createWriteStream(partial, { flags: 'wx' }));
    await link(partial, target);
    await unlink(partial);
  } catch (error) {
    await rm(partial, { force: true });
    throw new ProxyopsError(
      'ROTATE_COMPRESS_FAILED',
      `cannot compress ${path}: ${(error as Error).message}; it is kept as is`,
      {
        cause: error,
      },
    );
  }
  await unlink(path);
  return target;
}

/** Size and identity of a file; BAD_OPTION naming `option` when it does not exist. */
export async function statLog(
  path: string,
  option: string,
): Promise<{ dev: number; ino: number; size: number }> {
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new ProxyopsError('BAD_OPTION', `${option} ${path} is not a regular file`);
    return { dev: info.dev, ino: info.ino, size: info.size };
  } catch (error) {
    if (error instanceof ProxyopsError) throw error;
    throw new ProxyopsError(
      'BAD_OPTION',
      `${option} ${path} does not exist or cannot be read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        cause: error,
      },
    );
  }
}
