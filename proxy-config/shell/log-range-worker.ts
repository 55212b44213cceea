import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ProxyopsError } from '../core/errors.js';
import { createLineFilter, type LogFilter } from '../core/logs/log-filter.js';
import { createLogReaderKit, type LogFormatSpec } from '../core/logs/log-format-presets.js';
import { createLogScan, scanLogText } from '../core/logs/scan-log-text.js';
import {
  createStatsState,
  MAX_SAMPLES,
  mergeStatsState,
  type MalformedSample,
  type StatsState,
} from '../core/logs/stats-state.js';
import { createWasmLineScanner } from '../core/logs/wasm-line-scanner.js';
import { loadLogLineScanner } from './load-log-line-scanner.js';
import { countFileRange, readLineChunks } from './read-log-input.js';

/**
 * Byte ranges of one plain file to count, shared by the threads that count them: each thread takes
 * the next range from `next` (a shared counter) until none is left, so a thread that starts late or
 * gets less CPU simply takes fewer ranges. Plain data, sent to worker threads.
 */
export interface LogRangeJob {
  path: string;
  input: string;
  /** Line-start offsets: range i is `[offsets[i], offsets[i + 1])`. */
  offsets: number[];
  /** An Int32Array's buffer holding the index of the next range to take. */
  next: SharedArrayBuffer;
  spec: LogFormatSpec;
  filter: LogFilter;
  intervalMs: number;
}

/** A malformed sample with its line number inside range `range`. */
export interface RangeSample extends MalformedSample {
  range: number;
}

/** What one thread counted: one state for all its ranges, the line count of each range it took. */
export interface RangesResult {
  state: StatsState;
  /** [range index, lines in it] for every range this thread took. */
  rangeLines: Array<[number, number]>;
  samples: RangeSample[];
}

/** A fresh shared counter for `LogRangeJob.next`. */
export function createRangeCounter(): SharedArrayBuffer {
  return new SharedArrayBuffer(4);
}

/**
 * Below this many bytes the JavaScript reader counts the file: compiling and instantiating the WASM
 * scanner costs about 1.5 ms, which it wins back only on larger files. Measured on the 2-core build
 * machine, `logs stats --preset combined`, JavaScript reader time over the scanner's: 0.95 at 16, 64
 * and 128 KB, 1.2 at 256 KB and 1 MB. A one-line `--fail-if` check pays nothing for it.
 */
export const SCANNER_MIN_BYTES = 192 * 1024;

/** Counts ranges of the job, taking them one at a time from the shared counter, in whichever thread calls it. */
export function scanFileRanges(job: LogRangeJob): RangesResult {
  const kit = createLogReaderKit(job.spec);
  const state = createStatsState(kit.capabilities, job.intervalMs);
  const scan = createLogScan(
    kit,
    state,
    job.input,
    createLineFilter(job.filter, kit.capabilities, kit.escape),
  );
  const size = job.offsets[job.offsets.length - 1]! - job.offsets[0]!;
  const module = size >= SCANNER_MIN_BYTES ? loadLogLineScanner() : null;
  const scanner = module && kit.format ? createWasmLineScanner(module, kit.format) : null;
  const next = new Int32Array(job.next);
  const rangeLines: Array<[number, number]> = [];
  const samples: RangeSample[] = [];
  for (;;) {
    const i = Atomics.add(next, 0, 1);
    if (i + 1 >= job.offsets.length) break;
    const before = state.lines;
    scan.lineNumber = 0;
    if (scanner) countFileRange(job.path, job.offsets[i]!, job.offsets[i + 1]!, scanner, scan);
    else
      for (const text of readLineChunks(job.path, job.offsets[i]!, job.offsets[i + 1]!))
        scanLogText(scan, text);
    rangeLines.push([i, state.lines - before]);
    // Samples are numbered within their range; the caller adds the lines of the ranges before it.
    // Ranges come in increasing order, so a thread's first samples are the only ones that can be first.
    for (const sample of state.malformedSamples)
      if (samples.length < MAX_SAMPLES) samples.push({ ...sample, range: i });
    state.malformedSamples = [];
  }
  return { state, rangeLines, samples };
}

/** Merges what the threads counted into one state, numbering samples by their line in the whole file. */
export function mergeRangeResults(results: RangesResult[]): StatsState {
  const into = createStatsState(results[0]!.state.capabilities, results[0]!.state.intervalMs);
  const lines: number[] = [];
  for (const result of results) {
    mergeStatsState(into, result.state);
    for (const [range, count] of result.rangeLines) lines[range] = count;
  }
  const before: number[] = [];
  let total = 0;
  for (let i = 0; i < lines.length; i++) {
    before[i] = total;
    total += lines[i] ?? 0;
  }
  into.malformedSamples = results
    .flatMap((result) => result.samples)
    .sort((x, y) => x.range - y.range || x.line - y.line)
    .slice(0, MAX_SAMPLES)
    .map(({ range, ...sample }) => ({ ...sample, line: sample.line + before[range]! }));
  return into;
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
        worker.once('message', (result: RangesResult) => {
          done = true;
          resolve(result);
        });
        worker.once('error', (error) =>
          reject(
            new ProxyopsError('LOG_UNREADABLE', `cannot read ${job.input}: ${error.message}`, {
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
