import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { ProxyopsError } from '../../core/errors.js';
import { liveLogPath } from '../../core/nginx-config/configured-logs.js';
import { LOG_TAIL_BYTES, readFileTail, readInputFile } from './read-input-file.js';

const gunzipAsync = promisify(gunzip);

/** A log and its rotated copies, read oldest first as one text. */
export interface LogFamilyRead {
  /** The files read, oldest first. */
  files: string[];
  text: string;
  /** Only the last LOG_TAIL_BYTES were kept. */
  truncated: boolean;
}

/** The rotation number of a sibling (`access.log` 0, `access.log.1` 1, `access.log.2.gz` 2), or null for another file. */
function rotationOf(name: string, base: string): number | null {
  if (name === base || name === `${base}.gz`) return 0;
  const match = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)(\\.gz)?$`).exec(name);
  return match ? Number(match[1]) : null;
}

async function readOne(path: string, option: string): Promise<Buffer> {
  if (!path.endsWith('.gz')) {
    const tail = await readFileTail(path, option, 'latin1');
    return Buffer.from(tail.text, 'latin1');
  }
  const packed = await readInputFile(
    path,
    (reason, cause) => new ProxyopsError('BAD_OPTION', `cannot read ${option} ${path}: ${reason}`, { cause }),
  );
  return gunzipAsync(packed).catch((error: unknown) => {
    throw new ProxyopsError('BAD_OPTION', `cannot read ${option} ${path}: not gzip data`, { cause: error });
  });
}

/**
 * Reads `path` and, as far back as `sinceMs` reaches, its rotated siblings (`.1`, `.2.gz`, ...): a
 * rotated file last written before `sinceMs` holds nothing newer, so older ones are left unread.
 * Without `sinceMs` only `path` itself is read. `.gz` files are decompressed.
 */
export async function readLogFamily(
  path: string,
  option: string,
  sinceMs: number | null,
): Promise<LogFamilyRead> {
  const files = [path];
  if (sinceMs !== null) {
    const dir = dirname(path);
    const base = basename(liveLogPath(path));
    const own = rotationOf(basename(path), base) ?? 0;
    const names = await readdir(dir).catch(() => [] as string[]);
    const older = names
      .map((name) => ({ name, rotation: rotationOf(name, base) }))
      .filter((s): s is { name: string; rotation: number } => s.rotation !== null && s.rotation > own)
      .sort((a, b) => a.rotation - b.rotation);
    for (const sibling of older) {
      const full = join(dir, sibling.name);
      const mtime = (await stat(full).catch(() => null))?.mtimeMs ?? 0;
      if (mtime < sinceMs) break;
      files.push(full);
    }
  }
  files.reverse();
  const parts: Buffer[] = [];
  for (const file of files) {
    const data = await readOne(file, option);
    parts.push(
      data.length > 0 && data[data.length - 1] !== 0x0a ? Buffer.concat([data, Buffer.from('\n')]) : data,
    );
  }
  let joined = Buffer.concat(parts);
  const truncated = joined.length > LOG_TAIL_BYTES;
  if (truncated) {
    joined = joined.subarray(joined.length - LOG_TAIL_BYTES);
    joined = joined.subarray(joined.indexOf(0x0a) + 1);
  }
  return { files, text: joined.toString('latin1'), truncated };
}
