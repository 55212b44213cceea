import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { createLinePieces, type LinePieces } from '../../core/logs/line-pieces.js';

/** How a log is read across rotation. */
export interface LogReaderOptions {
  /** How long a rotated-away file keeps being read after it stops growing (nginx writes to it until USR1). */
  rotateGraceMs?: number;
  /** Start at the beginning instead of the end of the current file. */
  fromStart?: boolean;
}

/**
 * A log read by descriptor, pulled by its caller: `logs follow` on a timer, a deploy's watch at each
 * of its polls. Reading by path and offset instead reads nothing once the file is rotated until the
 * new one outgrows the offset, then reads from its middle.
 */
export interface LogReader {
  /** The whole lines (latin1) written since the last read, across rotation and truncation. */
  read(): string;
  /** Reads what is left, a last line without its newline too, and closes every descriptor. */
  close(): string;
}

interface Open {
  fd: number;
  ino: number;
  pos: number;
  /** The bytes read after the last newline. */
  pieces: LinePieces;
  idleSince: number;
  /** The file's first bytes (up to HEAD_BYTES) as read: other bytes there mean it was truncated. */
  head: Buffer;
}

const READ_BYTES = 1024 * 1024;
/** Enough to tell two logs apart: their first line's time and request id differ. */
const HEAD_BYTES = 64;

/**
 * Opens `path` for reading across rotation and truncation without losing or repeating a line: after
 * `mv` + reopen it drains the old file (until it has been idle for the grace time, counted between
 * reads) while reading the new one from its start; when the file was truncated (copytruncate: it
 * shrank, or its first bytes changed as it grew past the read position again) it starts again at 0.
 * An absent file is opened, from its start, once it appears.
 */
export function openLogReader(path: string, options: LogReaderOptions = {}): LogReader {
  const grace = options.rotateGraceMs ?? 6_000;
  const buf = Buffer.allocUnsafe(READ_BYTES);
  const rotated: Open[] = [];
  let texts: string[] = [];
  let current: Open | null = null;

  const open = (fromEnd: boolean): Open | null => {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return null;
    }
    const stat = fstatSync(fd);
    return {
      fd,
      ino: stat.ino,
      pos: fromEnd ? stat.size : 0,
      pieces: createLinePieces({ reusesChunks: true }),
      idleSince: Date.now(),
      head: readHead(fd),
    };
  };

  const readHead = (fd: number): Buffer => {
    const head = Buffer.alloc(HEAD_BYTES);
    return head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0));
  };

  /** Shrunk, or truncated and written past where it was read between two reads (its head differs). */
  const truncated = (file: Open, size: number): boolean => {
    if (size < file.pos) return true;
    if (file.head.length === 0) return false;
    const now = readHead(file.fd);
    return !now.subarray(0, file.head.length).equals(file.head);
  };

  /** Reads everything new; true when anything was read. */
  const drain = (file: Open): boolean => {
    if (truncated(file, fstatSync(file.fd).size)) {
      // Truncated in place: everything now in the file was written after the truncation.
      file.pos = 0;
      file.pieces.reset();
      file.head = Buffer.alloc(0);
    }
    let grew = false;
    for (;;) {
      const got = readSync(file.fd, buf, 0, buf.length, file.pos);
      if (got <= 0) return grew;
      grew = true;
      file.pos += got;
      const text = file.pieces.push(buf.subarray(0, got));
      if (text !== undefined) texts.push(text);
      if (file.head.length < HEAD_BYTES) file.head = readHead(file.fd);
    }
  };

  const finish = (file: Open) => {
    drain(file);
    const rest = file.pieces.end();
    if (rest !== undefined) texts.push(rest);
    closeSync(file.fd);
  };

  const take = (): string => {
    const text = texts.join('');
    texts = [];
    return text;
  };

  const read = (): string => {
    const now = Date.now();
    for (let i = rotated.length - 1; i >= 0; i--) {
      const old = rotated[i]!;
      if (drain(old)) old.idleSince = now;
      else if (now - old.idleSince >= grace) {
        finish(old);
        rotated.splice(i, 1);
      }
    }
    if (current) drain(current);
    let ino: number | null = null;
    try {
      ino = statSync(path).ino;
    } catch {
      ino = null;
    }
    if (ino !== null && (current === null || ino !== current.ino)) {
      if (current) {
        current.idleSince = now;
        rotated.push(current);
      }
      current = open(false);
      if (current) drain(current);
    }
    return take();
  };

  current = open(!options.fromStart);
  return {
    read,
    close() {
      read();
      for (const old of rotated.splice(0)) finish(old);
      if (current) finish(current);
      current = null;
      return take();
    },
  };
}
