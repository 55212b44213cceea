import { closeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Readable } from 'node:stream';
import { ProxyopsError } from '../core/errors.js';
import { describeDamage, type LogDamage } from '../core/logs/log-damage.js';
import { createLineFilter, type LogFilter } from '../core/logs/log-filter.js';
import {
  createLogReaderKit,
  presetFormat,
  type LogFormatSpec,
  type LogReaderKit,
} from '../core/logs/log-format-presets.js';
import type { LogEscape } from '../core/logs/parse-log-format.js';
import { defaultJobs } from '../core/logs/parse-jobs-option.js';
import { planFileThreads } from '../core/logs/plan-file-threads.js';
import { scanLogText } from '../core/logs/scan-log-text.js';
import { mergeStatsState, type StatsState } from '../core/logs/stats-state.js';
import { summarizeStats, type StatsSummary } from '../core/logs/summarize-stats.js';
import {
  bytesRead,
  canUseWorkers,
  countPieces,
  createPieceCounter,
  createRangeCounter,
  createReadCounter,
  mergeRangeResults,
  SCANNER_MIN_BYTES,
  startRangeWorkers,
  type LogPiece,
  type LogRangeJob,
  type RangesResult,
} from '../shell/logs/log-range-worker.js';
import {
  logFileSize,
  openLogFile,
  readLogInput,
  splitAtLineStarts,
  type OpenedLog,
} from '../shell/logs/read-log-input.js';

/** Where the log format comes from; at most one source. Nothing given means the `proxyops` preset. */
export interface LogFormatSource {
  logFormat?: string;
  escape?: LogEscape;
  nginxConf?: string;
  formatName?: string;
  preset?: string;
}

/**
 * Files at least this big are split by byte ranges across worker threads. Measured on the 2-core build
 * machine (docs/benchmarks.md, access logs), two threads against one, alternating runs: 100 MB 1.17x
 * the time, 150 MB 1.01x, 200 MB 0.89x (a worker boots in about 25 ms since its module is one bundled
 * file; the threshold was 256 MB when it took 40).
 */
export const SPLIT_MIN_BYTES = 160 * 1024 * 1024;
/**
 * Size of the ranges threads take one at a time from a split file. 2 MB rather than 8: the thread that
 * finishes first waits less for the other's last range (1 GB on 2 cores, alternating runs: 0.89-0.91 s
 * against 0.92-0.93 s, CPU 1.60 s against 1.65 s; 1 MB no better, 32 MB worse).
 */
export const RANGE_BYTES = 2 * 1024 * 1024;

/** Options of one statistics run. */
export interface LogStatsOptions {
  inputs: string[];
  spec: LogFormatSpec;
  filter?: LogFilter;
  intervalMs?: number;
  /** Threads for big plain files, 1..64 (see parseJobs); defaults to the number of cores, at most 64. */
  jobs?: number;
  splitMinBytes?: number;
  /** Size of the ranges a split file is cut into (threads take them one at a time). */
  rangeBytes?: number;
  /** Files opened at once (see OPEN_FILES_AT_ONCE). */
  openFilesAtOnce?: number;
  /** Runs smaller than this are read without the WebAssembly scanner (see SCANNER_MIN_BYTES). */
  scannerMinBytes?: number;
  stdin?: Readable;
  /**
   * Hears, after every read of this thread and every 200 ms while it waits, the bytes read so far by
   * every thread (compressed bytes for `.gz`) and the total.
   */
  onProgress?: (read: number, total: number) => void;
  /** Hears of `.gz` inputs that broke off (their lines before the damage are counted); without it, they fail the run. */
  onDamage?: (damaged: LogDamage[]) => void;
  /** Where the format came from, for the summary. */
  formatSource?: string;
}

/** Refuses format flags that do not go together (BAD_OPTION). */
export function checkLogFormatFlags(source: LogFormatSource): void {
  const given = [source.logFormat !== undefined, source.nginxConf !== undefined, source.preset !== undefined];
  if (given.filter(Boolean).length > 1)
    throw new ProxyopsError('BAD_OPTION', 'give only one of --log-format, --nginx-conf, --preset');
  // The preset and the config carry their own escape mode: a lone --escape would change nothing.
  if (source.escape !== undefined && source.logFormat === undefined)
    throw new ProxyopsError(
      'BAD_OPTION',
      '--escape needs --log-format (it is the escape mode of that format)',
    );
  if (source.formatName !== undefined && source.nginxConf === undefined)
    throw new ProxyopsError('BAD_OPTION', '--format-name needs --nginx-conf');
}

/** Resolves `--log-format` / `--nginx-conf --format-name` / `--preset` into a format spec. */
export async function resolveLogFormat(source: LogFormatSource): Promise<LogFormatSpec> {
  checkLogFormatFlags(source);
  if (source.logFormat !== undefined)
    return { kind: 'format', name: 'custom', format: source.logFormat, escape: source.escape ?? 'default' };
  if (source.nginxConf !== undefined) {
    if (source.formatName === undefined)
      throw new ProxyopsError('BAD_OPTION', '--nginx-conf needs --format-name NAME (the log_format to read)');
    const { readLogFormatFromConfig } = await import('../shell/logs/read-log-format-from-config.js');
    return readLogFormatFromConfig(source.nginxConf, source.formatName);
  }
  return presetFormat(source.preset ?? 'proxyops');
}

/** Checks the format and filter before any input is read (throws LOG_FORMAT_INVALID / BAD_OPTION). */
export function prepareLogStats(spec: LogFormatSpec, filter: LogFilter = {}): LogReaderKit {
  const kit = createLogReaderKit(spec);
  createLineFilter(filter, kit.capabilities, kit.escape);
  return kit;
}

/**
 * Files open at once. Every file of a batch is opened before any is read (a rotation during the run
 * then changes nothing); a run of more files than this reads them in batches, one after another, so
 * it never runs out of descriptors (1 024 per process is a common limit).
 */
export const OPEN_FILES_AT_ONCE = 256;

/** How often a run that waits for its threads still reports progress. */
const PROGRESS_EVERY_MS = 200;

/**
 * Reads every input (files, .gz, "-") and returns the merged statistics state, the `.gz` inputs that
 * broke off in its `damaged`. Every file is opened first; then one pool of pieces (byte ranges of plain
 * files, whole `.gz` files) is counted by this thread and, for a large run, worker threads.
 */
export async function collectLogStats(options: LogStatsOptions): Promise<StatsState> {
  const { inputs, onProgress } = options;
  const atOnce = options.openFilesAtOnce ?? OPEN_FILES_AT_ONCE;
  if (inputs.length <= atOnce) return (await collectBatch(options)).state;
  // More inputs than descriptors to spare: batches of files, one after another, merged in order.
  const total = onProgress
    ? inputs.reduce((sum, input) => sum + (input === '-' ? 0 : logFileSize(input)), 0)
    : 0;
  let before = 0;
  let state: StatsState | null = null;
  for (let at = 0; at < inputs.length; at += atOnce) {
    const batch = await collectBatch({
      ...options,
      inputs: inputs.slice(at, at + atOnce),
      onProgress: onProgress && ((read) => onProgress(before + read, total)),
    });
    before += batch.bytes;
    state = state ? mergeStatsState(state, batch.state) : batch.state;
  }
  return state!;
}

/** One batch of inputs, all files open at once: see collectLogStats. */
async function collectBatch(options: LogStatsOptions): Promise<{ state: StatsState; bytes: number }> {
  const filter = options.filter ?? {};
  const intervalMs = options.intervalMs ?? 60_000;
  const kit = prepareLogStats(options.spec, filter);
  const jobs = options.jobs ?? defaultJobs(availableParallelism());
  const opened: Array<OpenedLog | null> = [];
  try {
    for (const input of options.inputs) opened.push(input === '-' ? null : openLogFile(input));
    const files = opened.map((file) => file ?? { fd: -1, size: 0, compressed: false });
    const plan = planFileThreads(
      files,
      jobs,
      options.splitMinBytes ?? SPLIT_MIN_BYTES,
      options.rangeBytes ?? RANGE_BYTES,
    );
    const pieces: LogPiece[] = files.flatMap(({ fd, size, compressed }, file) => {
      const input = options.inputs[file]!;
      const cuts = plan.ranges[file]! > 1 ? splitAtLineStarts(fd, size, plan.ranges[file]!) : [0, size];
      return cuts.slice(1).map((end, k) => ({ input, file, fd, start: cuts[k]!, end, compressed }));
    });
    const stdinAt = pieces.findIndex((piece) => piece.fd === -1);
    const totalBytes = files.reduce((sum, file) => sum + file.size, 0);
    const job: LogRangeJob = {
      pieces,
      order: plan.order.filter((i) => i !== stdinAt),
      next: createRangeCounter(),
      read: createReadCounter(),
      scanner: totalBytes >= (options.scannerMinBytes ?? SCANNER_MIN_BYTES),
      spec: kit.spec,
      filter,
      intervalMs,
    };
    const progress = options.onProgress;
    const report = progress ? () => progress(bytesRead(job), totalBytes) : undefined;
    const timer = report ? setInterval(report, PROGRESS_EVERY_MS) : undefined;
    try {
      // This thread counts too, starting at once while the workers boot; they take whatever is left.
      const workers =
        plan.threads > 1 && canUseWorkers() ? await startRangeWorkers(job, plan.threads - 1) : [];
      const mine = countPieces(job, report);
      const results = await Promise.allSettled([mine, ...workers]);
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      const counted = results.map((result) => (result as PromiseFulfilledResult<RangesResult>).value);
      if (stdinAt >= 0) counted.push(await scanStandardInput(job, stdinAt, options.stdin));
      const { state, damaged } = mergeRangeResults(pieces, counted);
      state.damaged = damaged.map(({ range, offset, reason, lines }) => ({
        input: pieces[range]!.input,
        offset,
        size: pieces[range]!.end,
        reason,
        lines,
      }));
      return { state, bytes: totalBytes };
    } finally {
      clearInterval(timer);
    }
  } finally {
    for (const file of opened) if (file) closeSync(file.fd);
  }
}

/** Standard input, read by this thread as a stream with the JavaScript readers. */
async function scanStandardInput(job: LogRangeJob, range: number, stdin?: Readable): Promise<RangesResult> {
  const counter = createPieceCounter({ ...job, scanner: false });
  await counter.count(range, '-', async (scan) => {
    for await (const text of readLogInput('-', stdin)) scanLogText(scan, text);
    return null;
  });
  return counter.result;
}

/** Statistics of every input as the plain summary all outputs are made from. */
export async function computeLogStats(options: LogStatsOptions): Promise<StatsSummary> {
  const state = await collectLogStats(options);
  if (state.damaged.length > 0) {
    if (!options.onDamage) throw new ProxyopsError('LOG_UNREADABLE', describeDamage(state.damaged[0]!));
    options.onDamage(state.damaged);
  }
  return summarizeStats(state, {
    format: options.spec.name,
    formatSource: options.formatSource,
    inputs: options.inputs,
  });
}
