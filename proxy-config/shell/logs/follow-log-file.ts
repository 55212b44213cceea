import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { createLinePieces, type LinePieces } from '../../core/logs/line-pieces.js';

/** How a followed file is watched. */
export interface FollowOptions {
  /** How often the file is checked, in ms. */
  pollMs?: number;
  /** How long a rotated-away file keeps being read after it stops growing (nginx writes to it until USR1). */
  rotateGraceMs?: number;
  /** Start at the beginning instead of the end of the current file. */
  fromStart?: boolean;
}

/** A running follow; `stop()` reads what is left and closes every descriptor. */
export interface FollowHandle {
  stop(): void;
}

interface Open {
  fd: number;
  ino: number;
  pos: number;
  /** The bytes read after the last newline. */
  pieces: LinePieces;
  idleSince: number;
}

const READ_BYTES = 1024 * 1024;

/**
 * Follows an access log across rotation and truncation without losing or repeating a line: it reads by
 * descriptor, so after `mv` + reopen it drains the old file (until it has been idle for the grace time)
 * while reading the new one from its start; when the file shrinks (copytruncate) it starts again at 0.
 * `onText` receives byte strings (latin1) of whole lines.
 */
export function followLogFile(
  path: string,
  onText: (bytes: string) => void,
  options: FollowOptions = {},
): FollowHandle {
  const pollMs = options.pollMs ?? 250;
  const grace = options.rotateGraceMs ?? 6_000;
  const buf = Buffer.allocUnsafe(READ_BYTES);
  const rotated: Open[] = [];
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
    };
  };

  /** Reads everything new; true when anything was read. */
  const drain = (file: Open): boolean => {
    const size = fstatSync(file.fd).size;
    if (size < file.pos) {
      // Truncated in place: everything now in the file was written after the truncation.
      file.pos = 0;
      file.pieces.reset();
    }
    let grew = false;
    for (;;) {
      const got = readSync(file.fd, buf, 0, buf.length, file.pos);
      if (got <= 0) return grew;
      grew = true;
      file.pos += got;
      const text = file.pieces.push(buf.subarray(0, got));
      if (text !== undefined) onText(text);
    }
  };

  const close = (file: Open) => {
    drain(file);
    const rest = file.pieces.end();
    if (rest !== undefined) onText(rest);
    closeSync(file.fd);
  };

  const tick = () => {
    const now = Date.now();
    for (let i = rotated.length - 1; i >= 0; i--) {
      const old = rotated[i]!;
      if (drain(old)) old.idleSince = now;
      else if (now - old.idleSince >= grace) {
        close(old);
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
  };

  current = open(!options.fromStart);
  if (current && options.fromStart) drain(current);
  const timer = setInterval(tick, pollMs);
  return {
    stop() {
      clearInterval(timer);
      tick();
      for (const old of rotated.splice(0)) close(old);
      if (current) close(current);
      current = null;
    },
  };
}
