import {
  closeSync,
  createReadStream,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import type { Readable } from 'node:stream';
import { ProxyopsError } from '../../core/errors.js';
import { createLinePieces } from '../../core/logs/line-pieces.js';
import type { LogScan } from '../../core/logs/scan-log-text.js';
import type { WasmLineScanner } from '../../core/logs/wasm-line-scanner.js';
import { describeErrno, describeFileKind } from '../describe-path.js';

/** Bytes read per step; each step becomes one byte string of whole lines. */
export const CHUNK_BYTES = 64 * 1024;

/** A log input: a path, a `.gz` path (decompressed on the fly), or "-" for standard input. */
export function isCompressedInput(input: string): boolean {
  return input.endsWith('.gz');
}

/**
 * LOG_UNREADABLE naming the input, the system's reason in words and what to do about it: the errno
 * a person meets on a log (a wrong or rotated-away name, a log only root and group adm may read) is
 * said without its code; any other keeps the system's description.
 */
export function unreadable(input: string, error: unknown): ProxyopsError {
  return new ProxyopsError('LOG_UNREADABLE', `cannot read ${input}: ${describeLogErrno(input, error)}`, {
    cause: error,
  });
}

function describeLogErrno(input: string, error: unknown): string {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT': {
      // logrotate's delaycompress: access.log.1 is plain, access.log.2 on are .gz.
      const other = input.endsWith('.gz') ? input.slice(0, -3) : `${input}.gz`;
      if (input !== '-' && existsSync(other)) return `no such file; ${other} exists: give that name`;
      const live = input.replace(/\.\d+(\.gz)?$/, '');
      return `no such file; check the path (rotated logs are ${live}.1, ${live}.2.gz …)`;
    }
    case 'ENOTDIR':
      return 'a part of the path is not a directory; check the path';
    case 'EACCES':
    case 'EPERM':
      return "permission denied; run as a user who may read it (nginx's logs are usually readable by root and group adm only: sudo, or a member of adm)";
    case 'ELOOP':
      return 'too many levels of symbolic links; check where the links point';
    case 'ENAMETOOLONG':
      return 'the name is too long; check the path';
    default:
      return describeErrno(error);
  }
}

/** Opens a plain log file for reading; LOG_UNREADABLE when it cannot be. */
function openLog(path: string): number {
  try {
    return openSync(path, 'r');
  } catch (error) {
    throw unreadable(path, error);
  }
}

/** Size in bytes of a plain file input; LOG_UNREADABLE when it cannot be read. */
export function logFileSize(path: string): number {
  const refuse = (reason: string) => new ProxyopsError('LOG_UNREADABLE', `cannot read ${path}: ${reason}`);
  let stats: Stats;
  let pseudo: boolean;
  try {
    stats = statSync(path);
    pseudo = stats.isFile() && stats.size === 0 && isPseudoFile(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  if (!stats.isFile()) throw refuse(`not a regular file (${describeFileKind(stats)})`);
  if (pseudo)
    throw refuse('a /proc or /sys file (its size says 0 but it has content); copy it to a file first');
  return stats.size;
}

/** A log file opened once for a run (see LogPiece): its descriptor, its size then, and whether it is gzip. */
export interface OpenedLog {
  fd: number;
  size: number;
  compressed: boolean;
}

/**
 * Opens a file input for a run: LOG_UNREADABLE when it cannot be read or is not a regular file, and
 * when a `.gz` file does not start as gzip data does (nothing of it could be read).
 */
export function openLogFile(input: string): OpenedLog {
  logFileSize(input);
  const fd = openLog(input);
  try {
    // The size of the file opened, which a rotation between the two calls may have replaced.
    const size = fstatSync(fd).size;
    const compressed = isCompressedInput(input);
    if (compressed) {
      const magic = Buffer.alloc(2);
      const got = readSync(fd, magic, 0, 2, 0);
      if (got < 2 || magic[0] !== 0x1f || magic[1] !== 0x8b)
        throw new ProxyopsError(
          'LOG_UNREADABLE',
          `cannot read ${input}: not gzip data (${got === 0 ? 'an empty file' : 'no gzip header'}), though its name ends in .gz`,
        );
    }
    return { fd, size, compressed };
  } catch (error) {
    closeSync(fd);
    throw error instanceof ProxyopsError ? error : unreadable(input, error);
  }
}

/**
 * True for a kernel file such as /proc/self/status: its size is 0 yet a read returns bytes, so it
 * would count as empty, and --follow would read it again at every check. A log that grows between
 * the stat and the read has a size afterwards. A read that fails (/proc/self/mem) throws.
 */
function isPseudoFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    return readSync(fd, Buffer.alloc(1), 0, 1, 0) > 0 && fstatSync(fd).size === 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * Yields byte strings (latin1, one char per byte) of whole lines from `[start, end)` of the plain file
 * open as `fd`. A line longer than the buffer grows it, so no line is ever cut. `onRead` hears of
 * every read's byte count (progress).
 */
export function* readLineChunks(
  fd: number,
  start = 0,
  end = Infinity,
  onRead?: (bytes: number) => void,
): Generator<string> {
  let buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let carry = 0;
  let position = start;
  for (;;) {
    const want = Math.min(buf.length - carry, end - position);
    const got = want > 0 ? readSync(fd, buf, carry, want, position) : 0;
    position += got;
    onRead?.(got);
    const filled = carry + got;
    if (got === 0) {
      if (filled > 0) yield buf.toString('latin1', 0, filled);
      return;
    }
    const lastNl = buf.lastIndexOf(10, filled - 1);
    if (lastNl < 0) {
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      carry = filled;
      continue;
    }
    yield buf.toString('latin1', 0, lastNl + 1);
    carry = filled - lastNl - 1;
    buf.copy(buf, 0, lastNl + 1, filled);
  }
}

/** Bytes read per step straight into the WebAssembly scanner's memory. */
export const SCANNER_CHUNK_BYTES = 1024 * 1024;

/**
 * Counts the lines of `[start, end)` of the plain file open as `fd` into `scan`, reading whole lines
 * into the scanner's memory (no strings); a line longer than the input area grows it, so no line is
 * ever cut. A file that ends before `end` (truncated meanwhile) ends the range there.
 */
export function countFileRange(
  fd: number,
  start: number,
  end: number,
  scanner: WasmLineScanner,
  scan: LogScan,
  onRead?: (bytes: number) => void,
): void {
  scanner.reserve(SCANNER_CHUNK_BYTES);
  let carry = 0;
  let position = start;
  for (;;) {
    if (carry === scanner.input().length) scanner.reserve(carry * 2);
    const input = scanner.input();
    const want = Math.min(input.length - carry, end - position);
    const got = want > 0 ? readSync(fd, input, carry, want, position) : 0;
    position += got;
    onRead?.(got);
    const filled = carry + got;
    if (got === 0) {
      if (filled > 0) scanner.count(scan, filled);
      return;
    }
    const lastNl = input.lastIndexOf(10, filled - 1);
    if (lastNl < 0) {
      carry = filled;
      continue;
    }
    scanner.count(scan, lastNl + 1);
    carry = filled - lastNl - 1;
    input.copyWithin(0, lastNl + 1, filled);
  }
}

/**
 * Offsets that cut a file into `parts` byte ranges, each starting at a line start, so every line
 * belongs to exactly one range: [offsets[i], offsets[i+1]).
 */
export function splitAtLineStarts(fd: number, size: number, parts: number): number[] {
  const offsets = [0];
  // Small reads: a line start is usually a few hundred bytes on, and a big file has a cut every 2 MB.
  const buf = Buffer.allocUnsafe(8 * 1024);
  for (let i = 1; i < parts; i++) {
    let at = Math.max(Math.floor((size * i) / parts), offsets.at(-1)!);
    let next = size;
    while (at < size) {
      const got = readSync(fd, buf, 0, buf.length, at);
      if (got === 0) break;
      const nl = buf.indexOf(10);
      if (nl >= 0 && nl < got) {
        next = at + nl + 1;
        break;
      }
      at += got;
    }
    offsets.push(next);
  }
  offsets.push(size);
  return offsets;
}

/** Yields byte strings of whole lines from a stream (the last may lack its newline). */
export async function* readStreamLines(stream: Readable): AsyncGenerator<string> {
  const pieces = createLinePieces({ reusesChunks: false });
  for await (const chunk of stream) {
    const text = pieces.push(chunk as Buffer);
    if (text !== undefined) yield text;
  }
  const rest = pieces.end();
  if (rest !== undefined) yield rest;
}

/** Yields byte strings of whole lines from a `.gz` file, standard input ("-"), or a plain file. */
export async function* readLogInput(input: string, stdin?: Readable): AsyncGenerator<string> {
  if (input === '-') {
    // Only here: process.stdin is made on first read, a stream whose set-up a file run need not pay.
    yield* readStreamLines(stdin ?? process.stdin);
    return;
  }
  if (!isCompressedInput(input)) {
    logFileSize(input);
    const fd = openLog(input);
    try {
      yield* readLineChunks(fd);
    } finally {
      closeSync(fd);
    }
    return;
  }
  closeSync(openLogFile(input).fd);
  // zlib is loaded for .gz files only: a plain-file run does not pay for it.
  const { createGunzip } = await import('node:zlib');
  const file = createReadStream(input, { highWaterMark: 1024 * 1024 });
  const gunzip = createGunzip({ chunkSize: 1024 * 1024 });
  file.on('error', (error) => gunzip.destroy(unreadable(input, error)));
  try {
    yield* readStreamLines(file.pipe(gunzip));
  } catch (error) {
    if (error instanceof ProxyopsError) throw error;
    // Damaged gzip data ends what this yields; the count of the file reports the damage and where.
    if (typeof (error as { errno?: unknown }).errno !== 'number') throw unreadable(input, error);
  } finally {
    file.destroy();
  }
}
