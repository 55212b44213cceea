import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isProxyopsError, ProxyopsError } from '../../core/errors.js';
import { createLineFilter, type LogFilter } from '../../core/logs/log-filter.js';
import { createLogReaderKit, type LogFormatSpec } from '../../core/logs/log-format-presets.js';
import { createLinePieces } from '../../core/logs/line-pieces.js';
import { createLogScan, scanLogText, type LogScan } from '../../core/logs/scan-log-text.js';
import {
  createStatsState,
  MAX_SAMPLES,
  mergeStatsState,
  type MalformedSample,
  type StatsState,
} from '../../core/logs/stats-state.js';
import { createWasmLineScanner, type WasmLineScanner } from '../../core/logs/wasm-line-scanner.js';
import { loadLogLineScanner } from './load-log-line-scanner.js';
import { createScannerSink, inflateLogFile, type GzipDamage } from './read-gzip-log.js';
import { countFileRange, readLineChunks, unreadable } from './read-log-input.js';

/**
 * One piece of a run's input: a byte range of a plain file, or a whole `.gz` file. Files are opened
 * once, by the main thread, and read through their descriptor by every thread (a process's
 * descriptors are shared by its threads): a file renamed or replaced by rotation while it is read is
 * still read as the file that was opened.
 */
export interface LogPiece {
  /** The input as the user named it, for messages and samples. */
  input: string;
  /** Position of the input in the run's list: pieces of one input have the same, and are adjacent. */
  file: number;
  fd: number;
  start: number;
  end: number;
  compressed: boolean;
}

/**
 * The pieces of a run, shared by the threads that count them: each thread takes the next piece from a
 * shared counter until none is left, so a thread that starts late or gets less CPU simply takes
 * fewer. Every thread, the main one included, takes both kinds: a `.gz` file is inflated and counted
 * by the thread that took it, into fixed memory (read-gzip-log.ts), so four files on two cores keep
 * both busy to the end. Plain data, sent to worker threads.
 */
export interface LogRangeJob {
  pieces: LogPiece[];
  /** Indexes of the pieces to count, in the order threads take them (see FileThreadPlan.order). */
  order: number[];
  /** An Int32Array's buffer holding the position, in `order`, of the next piece to take. */
  next: SharedArrayBuffer;
  /** A BigInt64Array's buffer: bytes read so far by every thread (compressed bytes for `.gz`). */
  read: SharedArrayBuffer;
  /** Read with the WebAssembly scanner (false: the JavaScript readers). */
  scanner: boolean;
  spec: LogFormatSpec;
  filter: LogFilter;
  intervalMs: number;
}

/** A malformed sample with its line number inside piece `range`. */
export interface RangeSample extends MalformedSample {
  range: number;
}

/** A `.gz` piece that broke off: where, why, and how many lines before it were counted. */
export interface PieceDamage extends GzipDamage {
  range: number;
  lines: number;
}

/** What one thread counted: one state for all its pieces, the line count of each piece it took. */
export interface RangesResult {
  state: StatsState;
  /** [piece index, lines in it] for every piece this thread took. */
  rangeLines: Array<[number, number]>;
  samples: RangeSample[];
  damaged: PieceDamage[];
}

/** A fresh shared counter for `LogRangeJob.next`. */
export function createRangeCounter(): SharedArrayBuffer {
  return new SharedArrayBuffer(4);
}

/** A fresh shared byte counter for `LogRangeJob.read`. */
export function createReadCounter(): SharedArrayBuffer {
  return new SharedArrayBuffer(8);
}

/** Bytes every thread has read so far. */
export function bytesRead(job: LogRangeJob): number {
  return Number(Atomics.load(new BigInt64Array(job.read), 0));
}

/**
 * Below this many bytes the JavaScript reader counts the run: compiling and instantiating the WASM
 * scanner costs about 1.5 ms, which it wins back only on larger inputs. Measured on the 2-core build
 * machine, `logs stats --preset combined`, JavaScript reader time over the scanner's: 0.95 at 16, 64
 * and 128 KB, 1.2 at 256 KB and 1 MB. A one-line `--fail-if` check pays nothing for it.
 */
export const SCANNER_MIN_BYTES = 192 * 1024;

/** Reads one piece, or a stream, into the counter's scan: resolves with the damage it met, if any. */
type ReadPiece = (scan: LogScan, scanner: WasmLineScanner | null) => Promise<GzipDamage | null>;

/** One thread's count of the pieces it takes: one state, the lines and samples of each piece. */
export function createPieceCounter(job: LogRangeJob) {
  const kit = createLogReaderKit(job.spec);
  const state = createStatsState(kit.capabilities, job.intervalMs);
  const scan = createLogScan(kit, state, '', createLineFilter(job.filter, kit.capabilities, kit.escape));
  const module = job.scanner ? loadLogLineScanner() : null;
  const scanner = module && kit.format ? createWasmLineScanner(module, kit.format) : null;
  const result: RangesResult = { state, rangeLines: [], samples: [], damaged: [] };
  return {
    result,
    async count(range: number, input: string, read: ReadPiece): Promise<void> {
      const before = state.lines;
      scan.lineNumber = 0;
      scan.input = input;
      const damage = await read(scan, scanner);
      const lines = state.lines - before;
      result.rangeLines.push([range, lines]);
      if (damage) result.damaged.push({ ...damage, range, lines });
      // Samples are numbered within their piece; the merge adds the lines of the pieces before it. Pieces
      // are not taken in input order (.gz files first), so the first ones in input order are kept.
      if (state.malformedSamples.length > 0)
        result.samples = [
          ...result.samples,
          ...state.malformedSamples.map((sample) => ({ ...sample, range })),
        ]
          .sort((x, y) => x.range - y.range || x.line - y.line)
          .slice(0, MAX_SAMPLES);
      state.malformedSamples = [];
    },
  };
}

/** Reads one piece of the job: a byte range of a plain file, or a whole `.gz` file. */
function readPiece(piece: LogPiece, onRead: (bytes: number) => void): ReadPiece {
  return async (scan, scanner) => {
    try {
      return readPieceOnce(piece, onRead, scan, scanner);
    } catch (error) {
      throw isProxyopsError(error) ? error : unreadable(piece.input, error);
    }
  };
}

/** Output room for a `.gz` file read by the JavaScript readers (small runs only, see SCANNER_MIN_BYTES). */
const TEXT_INFLATE_BYTES = 64 * 1024;

function readPieceOnce(
  piece: LogPiece,
  onRead: (bytes: number) => void,
  scan: LogScan,
  scanner: WasmLineScanner | null,
): GzipDamage | null {
  const { fd, start, end } = piece;
  if (!piece.compressed) {
    if (scanner) countFileRange(fd, start, end, scanner, scan, onRead);
    else for (const text of readLineChunks(fd, start, end, onRead)) scanLogText(scan, text);
    return null;
  }
  if (scanner) {
    const sink = createScannerSink(scanner, scan);
    const damage = inflateLogFile(fd, end, sink, onRead);
    if (damage) sink.endAtDamage();
    else sink.end();
    return damage;
  }
  const output = Buffer.allocUnsafe(TEXT_INFLATE_BYTES);
  const pieces = createLinePieces({ reusesChunks: true });
  const damage = inflateLogFile(
    fd,
    end,
    {
      space: () => output,
      wrote: (bytes) => {
        const text = pieces.push(output.subarray(0, bytes));
        if (text !== undefined) scanLogText(scan, text);
      },
    },
    onRead,
  );
  const rest = pieces.end();
  // A line cut by the damage is not counted: only the whole lines before it are.
  if (rest !== undefined && !damage) scanLogText(scan, rest);
  return damage;
}

/**
 * One thread's part, the same in every thread: pieces of the job, one at a time, until none is left;
 * `onRead` (the main thread's progress) hears of every read. On a failure no thread takes a further
 * piece.
 */
export async function countPieces(job: LogRangeJob, onRead?: (bytes: number) => void): Promise<RangesResult> {
  const counter = createPieceCounter(job);
  const read = new BigInt64Array(job.read);
  const note = (bytes: number) => {
    Atomics.add(read, 0, BigInt(bytes));
    onRead?.(bytes);
  };
  const next = new Int32Array(job.next);
  try {
    for (;;) {
      const at = Atomics.add(next, 0, 1);
      if (at >= job.order.length) return counter.result;
      const piece = job.pieces[job.order[at]!]!;
      await counter.count(job.order[at]!, piece.input, readPiece(piece, note));
    }
  } catch (error) {
    Atomics.store(next, 0, job.order.length);
    throw error;
  }
}

/**
 * Merges what the threads counted into one state, numbering samples by their line in their whole
 * input, and lists the damaged pieces in input order.
 */
export function mergeRangeResults(
  pieces: Array<Pick<LogPiece, 'file'>>,
  results: RangesResult[],
): { state: StatsState; damaged: PieceDamage[] } {
  const into = createStatsState(results[0]!.state.capabilities, results[0]!.state.intervalMs);
  const lines: number[] = [];
  for (const result of results) {
    mergeStatsState(into, result.state);
    for (const [range, count] of result.rangeLines) lines[range] = count;
  }
  const before: number[] = [];
  let total = 0;
  for (let i = 0; i < pieces.length; i++) {
    if (i > 0 && pieces[i]!.file !== pieces[i - 1]!.file) total = 0;
    before[i] = total;
    total += lines[i] ?? 0;
  }
  into.malformedSamples = results
    .flatMap((result) => result.samples)
    .sort((x, y) => x.range - y.range || x.line - y.line)
    .slice(0, MAX_SAMPLES)
    .map(({ range, ...sample }) => ({ ...sample, line: sample.line + before[range]! }));
  const damaged = results
    .flatMap((result) => result.damaged)
    .sort((x, y) => x.range - y.range)
    .map((damage) => ({ ...damage, lines: damage.lines + before[damage.range]! }));
  return { state: into, damaged };
}

const workerFile = fileURLToPath(new URL('./log-range-thread.js', import.meta.url));

/** True when the compiled worker module exists (not when running from TypeScript sources under vitest). */
export function canUseWorkers(): boolean {
  return existsSync(workerFile) && !import.meta.url.endsWith('.ts');
}

/**
 * Starts `count` worker threads on the job and returns, for each, what it will have counted. The
 * threads exist when this resolves: the caller, which counts too, must await it before it starts, or
 * it would count every range itself before a thread was even made.
 */
export async function startRangeWorkers(
  job: LogRangeJob,
  count: number,
): Promise<Array<Promise<RangesResult>>> {
  // worker_threads is loaded only by runs that use threads.
  const { Worker } = await import('node:worker_threads');
  return Array.from(
    { length: count },
    () =>
      new Promise<RangesResult>((resolve, reject) => {
        const worker = new Worker(workerFile, { workerData: { proxyopsLogRange: job } });
        let done = false;
        worker.once('message', (answer: RangeThreadAnswer) => {
          done = true;
          if ('result' in answer) resolve(answer.result);
          else reject(new ProxyopsError(answer.failure.code, answer.failure.message));
        });
        worker.once('error', (error) =>
          reject(
            new ProxyopsError('LOG_UNREADABLE', `cannot read the logs: ${error.message}`, {
              cause: error,
            }),
          ),
        );
        worker.once('exit', (code) => {
          if (!done) reject(new Error(`log worker exited with code ${code} before answering`));
        });
      }),
  );
}

/** What a worker thread posts back: what it counted, or the error (code and line) that stopped it. */
export type RangeThreadAnswer = { result: RangesResult } | { failure: { code: string; message: string } };
