import { readSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { LogScan } from '../../core/logs/scan-log-text.js';
import type { WasmLineScanner } from '../../core/logs/wasm-line-scanner.js';
import { SCANNER_CHUNK_BYTES } from './read-log-input.js';

/** Compressed bytes read per step, and the most output zlib hands over at once: memory stays bounded. */
const READ_BYTES = 256 * 1024;
const INFLATE_CHUNK_BYTES = 256 * 1024;

/** Where a `.gz` file stops making sense: the compressed bytes zlib had taken, and its word for why. */
export interface GzipDamage {
  offset: number;
  reason: string;
}

/**
 * Inflates the `.gz` file open as `fd` (its first `size` bytes), handing each piece of output to
 * `onBytes` in order; a file of several gzip members reads as their contents joined. Runs on zlib's
 * own threads, so the calling thread counts one piece while the next is inflated. Resolves with the
 * damage when the data stops being gzip (truncated, corrupt, trailing garbage), after every byte
 * before it was handed over; throws only when the file cannot be read.
 */
export async function inflateLogFile(
  fd: number,
  size: number,
  onBytes: (chunk: Buffer) => void,
  onRead: (bytes: number) => void,
): Promise<GzipDamage | null> {
  // zlib is loaded by runs that read .gz files only.
  const { createGunzip } = await import('node:zlib');
  const gunzip = createGunzip({ chunkSize: INFLATE_CHUNK_BYTES });
  let position = 0;
  let readError: unknown = null;
  const source = new Readable({
    highWaterMark: READ_BYTES,
    read() {
      try {
        const buf = Buffer.allocUnsafe(Math.min(READ_BYTES, size - position));
        const got = buf.length > 0 ? readSync(fd, buf, 0, buf.length, position) : 0;
        position += got;
        onRead(got);
        this.push(got > 0 ? buf.subarray(0, got) : null);
      } catch (error) {
        readError = error;
        this.push(null);
      }
    },
  });
  source.pipe(gunzip);
  try {
    for await (const chunk of gunzip) onBytes(chunk as Buffer);
  } catch (error) {
    if (readError === null && typeof (error as { errno?: unknown }).errno === 'number')
      return { offset: gunzip.bytesWritten, reason: (error as Error).message };
    throw readError ?? error;
  } finally {
    source.destroy();
  }
  if (readError !== null) throw readError;
  return null;
}

/**
 * Feeds bytes that arrive in pieces (inflated output) to the WebAssembly scanner: copies them into its
 * memory and counts whole lines each time the input area is full, keeping a partial last line for
 * the next piece; a line longer than the area grows it.
 */
export function createScannerFeed(scanner: WasmLineScanner, scan: LogScan) {
  scanner.reserve(SCANNER_CHUNK_BYTES);
  let filled = 0;
  /** Counts the whole lines in the area and moves the partial last one to its start. */
  const countWholeLines = () => {
    const input = scanner.input();
    const lastNl = input.lastIndexOf(10, filled - 1);
    if (lastNl < 0) return false;
    scanner.count(scan, lastNl + 1);
    input.copyWithin(0, lastNl + 1, filled);
    filled -= lastNl + 1;
    return true;
  };
  return {
    push(chunk: Uint8Array): void {
      for (let at = 0; at < chunk.length;) {
        const input = scanner.input();
        if (filled === input.length) {
          if (!countWholeLines()) scanner.reserve(filled * 2);
          continue;
        }
        const n = Math.min(chunk.length - at, input.length - filled);
        input.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
      }
    },
    /** The end of the data: the last line counts even without its "\n". */
    end(): void {
      if (filled > 0) scanner.count(scan, filled);
      filled = 0;
    },
    /** The data broke off: the whole lines count, a line cut by the damage does not. */
    endAtDamage(): void {
      if (filled > 0) countWholeLines();
      filled = 0;
    },
  };
}
