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
import { createScannerFeed, inflateLogFile, type GzipDamage } from './read-gzip-log.js';
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
 * fewer. Plain ranges are taken by every thread; `.gz` files by the main thread only, several at
 * once: zlib inflates them on its own threads while the main thread counts what comes out. (A
 * worker thread reading inflated output would hold its own tens of MB of chunks not yet collected.)
 * Plain data, sent to worker threads.
 */
export interface LogRangeJob {
  pieces: LogPiece[];
  /** Indexes of plain pieces, in the order threads take them; `nextPlain` counts them off. */
  plain: number[];
  /** Indexes of `.gz` pieces, in the order the main thread takes them; `nextCompressed` counts them off. */
  compressed: number[];
  /** Int32Array buffers holding the position, in `plain` and `compressed`, of the next piece to take. */
  nextPlain: SharedArrayBuffer;
  nextCompressed: SharedArrayBuffer;
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

/** A fresh shared counter for `LogRangeJob.nextPlain` or `nextCompressed`. */
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
      return await readPieceOnce(piece, onRead, scan, scanner);
    } catch (error) {
      throw isProxyopsError(error) ? error : unreadable(piece.input, error);
    }
  };
}

async function readPieceOnce(
  piece: LogPiece,
  onRead: (bytes: number) => void,
  scan: LogScan,
  scanner: WasmLineScanner | null,
): Promise<GzipDamage | null> {
  const { fd, start, end } = piece;
  if (!piece.compressed) {
    if (scanner) countFileRange(fd, start, end, scanner, scan, onRead);
    else for (const text of readLineChunks(fd, start, end, onRead)) scanLogText(scan, text);
    return null;
  }
  if (scanner) {
    const feed = createScannerFeed(scanner, scan);
    const damage = await inflateLogFile(fd, end, (chunk) => feed.push(chunk), onRead);
    if (damage) feed.endAtDamage();
    else feed.end();
    return damage;
  }
  const pieces = createLinePieces({ reusesChunks: false });
  const damage = await inflateLogFile(
    fd,
    end,
    (chunk) => {
      const text = pieces.push(chunk);
      if (text !== undefined) scanLogText(scan, text);
    },
    onRead,
  );
  const rest = pieces.end();
  // A line cut by the damage is not counted: only the whole lines before it are.
  if (rest !== undefined && !damage) scanLogText(scan, rest);
  return damage;
}

/** Takes pieces from `order` until none is left, counting each into `counter`. */
async function takePieces(
  job: LogRangeJob,
  counter: ReturnType<typeof createPieceCounter>,
  order: number[],
  next: Int32Array,
  note: (bytes: number) => void,
  yieldBetween: boolean,
): Promise<void> {
  for (;;) {
    const at = Atomics.add(next, 0, 1);
    if (at >= order.length) return;
    const piece = job.pieces[order[at]!]!;
    await counter.count(order[at]!, piece.input, readPiece(piece, note));
    // A plain range is read without a pause: let the main thread's inflating files and timers go on.
    if (yieldBetween) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Makes the function each read reports to: the shared byte count, and this thread's `onRead`. */
function noteReads(job: LogRangeJob, onRead?: (bytes: number) => void) {
  const read = new BigInt64Array(job.read);
  return (bytes: number) => {
    Atomics.add(read, 0, BigInt(bytes));
    onRead?.(bytes);
  };
}

/** Stops every thread of a failed run: no thread takes a further piece. */
function stopTaking(job: LogRangeJob): void {
  Atomics.store(new Int32Array(job.nextPlain), 0, job.plain.length);
  Atomics.store(new Int32Array(job.nextCompressed), 0, job.compressed.length);
}

/** A worker thread's part: plain ranges, one at a time, until none is left. */
export async function scanFileRanges(job: LogRangeJob): Promise<RangesResult> {
  const counter = createPieceCounter(job);
  try {
    await takePieces(job, counter, job.plain, new Int32Array(job.nextPlain), noteReads(job), false);
  } catch (error) {
    stopTaking(job);
    throw error;
  }
  return counter.result;
}

/**
 * The main thread's part: `lanes` `.gz` files inflating at once, and plain ranges once no `.gz` file
 * is left to start; `onRead` (progress) hears of every read. Each lane counts into a state of its own.
 */
export async function scanMainPieces(
  job: LogRangeJob,
  lanes: number,
  onRead?: (bytes: number) => void,
): Promise<RangesResult[]> {
  const note = noteReads(job, onRead);
  const lane = async () => {
    const counter = createPieceCounter(job);
    await takePieces(job, counter, job.compressed, new Int32Array(job.nextCompressed), note, false);
    await takePieces(job, counter, job.plain, new Int32Array(job.nextPlain), note, lanes > 1);
    return counter.result;
  };
  try {
    return await Promise.all(Array.from({ length: lanes }, lane));
  } catch (error) {
    stopTaking(job);
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
