import { fstatSync, statSync, writeSync } from 'node:fs';
import type { OutputConfiguration } from 'commander';
import { EXIT } from './exit-codes.js';

// Making process.stdout loads Node's stream modules (and node:net for a pipe): about a fifth of what
// `proxyops --help` cost above a bare `node -e ''` (bench:cli). A run that only prints help or the
// version writes to fd 1 itself when it is no terminal; process.stdout is made only by a command's work.

/**
 * `proxyops ... | head` closes our stdout early: stop quietly, as Unix filters do, instead of a stack
 * trace. Commands that must finish their work whatever happens to the output (up, remote) replace it.
 */
export function quitOnClosedStdout(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? EXIT.ok);
}

/** process.stdout, with quitOnClosedStdout listening once. */
export function watchedStdout(): NodeJS.WriteStream {
  const stdout = process.stdout;
  if (!stdout.listeners('error').includes(quitOnClosedStdout)) stdout.on('error', quitOnClosedStdout);
  return stdout;
}

/**
 * True when fd 1 is a pipe, a socket, a file or the null device, never a terminal. fstat rather than
 * tty.isatty, which loads node:net.
 */
export function stdoutIsPlain(): boolean {
  try {
    const stats = fstatSync(1);
    if (stats.isFIFO() || stats.isSocket() || stats.isFile()) return true;
    return stats.isCharacterDevice() && stats.rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/** What writes bytes to fd 1: fs.writeSync's signature, for the tests to stand in for it. */
export type WriteFd1 = (bytes: Uint8Array, offset: number) => number;

/**
 * commander's output of help and version text when stdout is plain: what commander would print there
 * (80 columns, no colour), written with writeSync. A pipe that cannot take it all at once (EAGAIN:
 * its reader's end was left non-blocking) gets the rest, and every later text, through process.stdout.
 */
export function plainStdoutOutput(
  write: WriteFd1 = (bytes, offset) => writeSync(1, bytes, offset),
  stream: () => Pick<NodeJS.WriteStream, 'write'> = watchedStdout,
): OutputConfiguration {
  let fallback: Pick<NodeJS.WriteStream, 'write'> | undefined;
  return {
    writeOut(text) {
      if (fallback !== undefined) {
        fallback.write(text);
        return;
      }
      const bytes = Buffer.from(text);
      let written = 0;
      try {
        while (written < bytes.length) written += write(bytes, written);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return quitOnClosedStdout(error as Error);
        fallback = stream();
        fallback.write(bytes.subarray(written));
      }
    },
    // commander's own width and colours for a stdout that is no terminal; proxyops styles no help
    // text, so there is no colour code to keep or strip either way.
    getOutHelpWidth: () => 80,
    getOutHasColors: () => false,
  };
}
