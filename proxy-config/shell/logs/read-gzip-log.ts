import { ProxyopsError } from '../../core/errors.js';
import { readSync } from 'node:fs';
import type { LogScan } from '../../core/logs/scan-log-text.js';
import type { WasmLineScanner } from '../../core/logs/wasm-line-scanner.js';
import { SCANNER_CHUNK_BYTES } from './read-log-input.js';

/**
 * Compressed bytes read per step, into one buffer used again and again: 64 KB inflate to ≈ 700 KB of
 * a rendered access log, less than the scanner's 1 MB area takes in one step.
 */
const READ_BYTES = 64 * 1024;

/** Where a `.gz` file stops making sense: the compressed bytes zlib had taken, and its word for why. */
export interface GzipDamage {
  offset: number;
  reason: string;
}

/**
 * Where inflated bytes go: `space()` is memory to write into (at least one byte, valid until the next
 * call), `wrote(n)` says its first `n` bytes were written. The scanner's own input area is one, so
 * inflated bytes are never copied or held anywhere else.
 */
export interface InflateSink {
  space(): Uint8Array;
  wrote(bytes: number): void;
}

/**
 * The parts of the binding behind a zlib stream that its own synchronous path (`zlib.gunzipSync`,
 * `processChunkSync` in Node's lib/zlib.js) drives: one inflate step from `input` into `output`, the
 * room left in each afterwards in `_writeState`, errors to `onerror`. Not documented, unchanged since
 * Node 10; what the stream offers instead allocates a new buffer for every output chunk, and a thread
 * inflating a gigabyte holds 40–60 MB of those until V8 collects them (docs/benchmarks.md, issue 29).
 */
interface GunzipInternals {
  _handle: {
    writeSync(
      flush: number,
      input: Uint8Array,
      inputOffset: number,
      inputLength: number,
      output: Uint8Array,
      outputOffset: number,
      outputLength: number,
    ): void;
    onerror: (message: string, errno: number) => void;
  };
  /** [output room left, input bytes left] after the last step. */
  _writeState: Uint32Array;
}

/**
 * Inflates the `.gz` file open as `fd` (its first `size` bytes) into `sink`, synchronously, on the
 * calling thread, with Node's zlib and fixed memory: one read buffer, zlib's window and the sink's
 * area. A file of several gzip members reads as their contents joined; zero bytes after a member end
 * it, as `zcat` and zlib's streams read it. Returns the damage when the data stops being gzip
 * (truncated, corrupt, trailing garbage), after every byte before it went to the sink; throws only
 * when the file cannot be read.
 */
export function inflateLogFile(
  fd: number,
  size: number,
  sink: InflateSink,
  onRead: (bytes: number) => void,
): GzipDamage | null {
  let given = 0;
  const damage = inflateSteps(fd, size, Infinity, onRead, {
    space: () => sink.space(),
    wrote: (bytes) => {
      given += bytes;
      sink.wrote(bytes);
    },
  });
  // zlib reports an error for the whole step that met it: what that step inflated before the damage
  // (up to a full sink area of good lines, say the members before trailing garbage) is lost. When the
  // step had input (not a truncated file, whose last step has none), go over the file once more,
  // passing on only what comes after the `given` bytes, one compressed byte per step from where the
  // failing step began: the sink gets every byte before the damage, and the offset is exact.
  if (damage === null || damage.offset >= size) return damage;
  const scratch = Buffer.allocUnsafe(READ_BYTES);
  let skip = given;
  const again = inflateSteps(fd, size, damage.offset, () => {}, {
    space: () => (skip > 0 ? scratch.subarray(0, Math.min(skip, scratch.length)) : sink.space()),
    wrote: (bytes) => {
      if (skip > 0) skip -= bytes;
      else sink.wrote(bytes);
    },
  });
  return again ?? damage;
}

/** inflateLogFile's pass over the file: steps of READ_BYTES of input, of one byte from `byteFrom` on. */
function inflateSteps(
  fd: number,
  size: number,
  byteFrom: number,
  onRead: (bytes: number) => void,
  sink: InflateSink,
): GzipDamage | null {
  // zlib is loaded by runs that read .gz files only (≈ 2 ms of a one-line run's start otherwise).
  const { constants, createGunzip } = process.getBuiltinModule('node:zlib');
  const gunzip = createGunzip();
  const { _handle: zlib, _writeState: state } = gunzip as unknown as GunzipInternals;
  // Checked on Node 20, 22 and 24; a Node whose zlib changed says so here instead of counting wrong.
  if (typeof zlib?.writeSync !== 'function' || !(state instanceof Uint32Array))
    throw new ProxyopsError(
      'NODE_UNSUPPORTED',
      `this Node.js (${process.version}) inflates differently from Node 20, 22 and 24: .gz logs cannot be read with it`,
    );
  let failure: string | null = null;
  zlib.onerror = (message) => {
    failure = message;
  };
  const input = Buffer.allocUnsafe(READ_BYTES);
  let position = 0;
  let inputAt = 0;
  let inputLeft = 0;
  let taken = 0;
  // zlib may hold inflated bytes it had no room for: Z_FINISH (which fails a stream that has not
  // ended) only once a step left room in the output.
  let pending = false;
  try {
    for (;;) {
      if (inputLeft === 0 && position < size) {
        const got = readSync(fd, input, 0, Math.min(READ_BYTES, size - position), position);
        onRead(got);
        // A file cut shorter while read ends where it ends (zlib says whether that is inside a member).
        position = got > 0 ? position + got : size;
        inputAt = 0;
        inputLeft = got;
      }
      const finishing = inputLeft === 0 && !pending;
      const step = taken >= byteFrom ? Math.min(1, inputLeft) : inputLeft;
      const output = sink.space();
      zlib.writeSync(
        finishing ? constants.Z_FINISH : constants.Z_NO_FLUSH,
        input,
        inputAt,
        step,
        output,
        0,
        output.length,
      );
      if (failure !== null) return { offset: taken, reason: failure };
      const outputLeft = state[0]!;
      const consumed = step - state[1]!;
      taken += consumed;
      inputAt += consumed;
      inputLeft -= consumed;
      if (outputLeft < output.length) sink.wrote(output.length - outputLeft);
      pending = outputLeft === 0;
      // Room left in the output and input zlib will not take: the data ended (zero padding after a
      // member, or Z_FINISH past the last member's end), as zlib's stream ends there too.
      if (outputLeft > 0 && (finishing || step - consumed > 0)) return null;
    }
  } finally {
    gunzip.close();
  }
}

/**
 * The scanner's input area as an InflateSink: zlib writes into it, and each time it is full its whole
 * lines are counted and the partial last one moved to its start; a line longer than the area grows it.
 */
export function createScannerSink(scanner: WasmLineScanner, scan: LogScan) {
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
    space(): Uint8Array {
      if (filled === scanner.input().length && !countWholeLines()) scanner.reserve(filled * 2);
      return scanner.input().subarray(filled);
    },
    wrote(bytes: number): void {
      filled += bytes;
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
