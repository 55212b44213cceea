import { availableParallelism } from 'node:os';
import type { Readable } from 'node:stream';
import { ProxyopsError } from './core/errors.js';
import { createLineFilter, type LogFilter } from './core/logs/log-filter.js';
import {
  createLogReaderKit,
  presetFormat,
  type LogFormatSpec,
  type LogReaderKit,
} from './core/logs/log-format-presets.js';
import type { LogEscape } from './core/logs/parse-log-format.js';
import { defaultJobs } from './core/logs/parse-jobs-option.js';
import { planFileThreads } from './core/logs/plan-file-threads.js';
import { createLogScan, scanLogText } from './core/logs/scan-log-text.js';
import { createStatsState, mergeStatsState, type StatsState } from './core/logs/stats-state.js';
import { summarizeStats, type StatsSummary } from './core/logs/summarize-stats.js';
import {
  canUseWorkers,
  createRangeCounter,
  mergeRangeResults,
  scanFileRanges,
  startRangeWorkers,
  type LogRangeJob,
} from './shell/log-range-worker.js';
import { isCompressedInput, logFileSize, readLogInput, splitAtLineStarts } from './shell/read-log-input.js';

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
  stdin?: Readable;
  /** Where the format came from, for the summary. */
  formatSource?: string;
}

/** Resolves `--log-format` / `--nginx-conf --format-name` / `--preset` into a format spec. */
export async function resolveLogFormat(source: LogFormatSource): Promise<LogFormatSpec> {
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
  if (source.logFormat !== undefined)
    return { kind: 'format', name: 'custom', format: source.logFormat, escape: source.escape ?? 'default' };
  if (source.nginxConf !== undefined) {
    if (source.formatName === undefined)
      throw new ProxyopsError('BAD_OPTION', '--nginx-conf needs --format-name NAME (the log_format to read)');
    const { readLogFormatFromConfig } = await import('./shell/read-log-format-from-config.js');
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

/** Reads every input (files, .gz, "-") and returns the merged statistics state. */
export async function collectLogStats(options: LogStatsOptions): Promise<StatsState> {
  const filter = options.filter ?? {};
  const intervalMs = options.intervalMs ?? 60_000;
  const kit = prepareLogStats(options.spec, filter);
  const total = createStatsState(kit.capabilities, intervalMs);
  const jobs = options.jobs ?? defaultJobs(availableParallelism());
  const splitMin = options.splitMinBytes ?? SPLIT_MIN_BYTES;
  for (const input of options.inputs) {
    if (input === '-' || isCompressedInput(input)) {
      const state = createStatsState(kit.capabilities, intervalMs);
      const scan = createLogScan(kit, state, input, createLineFilter(filter, kit.capabilities, kit.escape));
      for await (const text of readLogInput(input, options.stdin)) scanLogText(scan, text);
      mergeStatsState(total, state);
      continue;
    }
    const size = logFileSize(input);
    const { threads, ranges } = planFileThreads(size, jobs, splitMin, options.rangeBytes ?? RANGE_BYTES);
    const job: LogRangeJob = {
      path: input,
      input,
      offsets: ranges > 1 ? splitAtLineStarts(input, size, ranges) : [0, size],
      next: createRangeCounter(),
      spec: kit.spec,
      filter,
      intervalMs,
    };
    // This thread counts too, starting at once while the workers boot; they take whatever is left.
    const workers = threads > 1 && canUseWorkers() ? await startRangeWorkers(job, threads - 1) : [];
    const mine = scanFileRanges(job);
    mergeStatsState(total, mergeRangeResults([mine, ...(await Promise.all(workers))]));
  }
  return total;
}

/** Statistics of every input as the plain summary all outputs are made from. */
export async function computeLogStats(options: LogStatsOptions): Promise<StatsSummary> {
  const state = await collectLogStats(options);
  return summarizeStats(state, {
    format: options.spec.name,
    formatSource: options.formatSource,
    inputs: options.inputs,
  });
}
