import { createLineFilter, type LogFilter } from '../core/logs/log-filter.js';
import type { LogFormatSpec } from '../core/logs/log-format-presets.js';
import { createLogScan, scanLogText, type LogScan } from '../core/logs/scan-log-text.js';
import { createStatsState, mergeStatsState, type StatsState } from '../core/logs/stats-state.js';
import { summarizeStats, type StatsSummary } from '../core/logs/summarize-stats.js';
import { ProxyopsError } from '../core/errors.js';
import { followLogFile, type FollowHandle, type FollowOptions } from '../shell/logs/follow-log-file.js';
import { isCompressedInput, logFileSize, readStreamLines } from '../shell/logs/read-log-input.js';
import { prepareLogStats } from './logs-stats.js';
import type { Readable } from 'node:stream';

/** Options of a live run. */
export interface FollowStatsOptions extends FollowOptions {
  inputs: string[];
  spec: LogFormatSpec;
  filter?: LogFilter;
  /** Wall-clock period of updates, ms. */
  intervalMs: number;
  /** Timeline bucket of the cumulative state, ms. */
  timelineMs?: number;
  stdin?: Readable;
  formatSource?: string;
  /** Called every interval with everything so far and with the interval alone. */
  onUpdate(total: StatsSummary, interval: StatsSummary): void;
  /** Also given what was read since its last call: at every update and whenever `collect()` is called. */
  onRead?(delta: StatsState): void;
}

/** A live run; `stop()` reads what is left, sends a last update and resolves with the final totals. */
export interface FollowStatsHandle {
  stop(): StatsSummary;
  /** Hands what was read since the last update to `onRead` now (a scrape counts lines as read). */
  collect(): void;
  /** Everything counted up to the last update (after `stop()`: the final totals). */
  readonly total: StatsState;
  /**
   * Resolves when there is nothing left to follow: every input was standard input and it ended (a
   * file is followed until stopped). Rejects when reading standard input fails.
   */
  ended: Promise<void>;
}

/** Follows files (across rotation and truncation) and standard input, updating statistics every interval. */
export function followLogStats(options: FollowStatsOptions): FollowStatsHandle {
  const filter = options.filter ?? {};
  const onRead = options.onRead;
  const kit = prepareLogStats(options.spec, filter);
  for (const input of options.inputs) {
    if (input !== '-') logFileSize(input);
    if (isCompressedInput(input))
      throw new ProxyopsError('BAD_OPTION', `--follow cannot follow ${input}: it is compressed`);
  }
  const timelineMs = options.timelineMs ?? 60_000;
  const total = createStatsState(kit.capabilities, timelineMs);
  let interval = createStatsState(kit.capabilities, timelineMs);
  // What the scans count into; moved into `interval` at every update, and in between when collected.
  let fresh = onRead ? createStatsState(kit.capabilities, timelineMs) : interval;
  const scans: LogScan[] = options.inputs.map((input) =>
    createLogScan(kit, fresh, input, createLineFilter(filter, kit.capabilities, kit.escape)),
  );
  const meta = { format: options.spec.name, formatSource: options.formatSource, inputs: options.inputs };
  const handles: FollowHandle[] = [];
  const streams: Array<Promise<void>> = [];
  options.inputs.forEach((input, i) => {
    const scan = scans[i]!;
    const onText = (text: string) => {
      scan.state = fresh;
      scanLogText(scan, text);
    };
    if (input === '-') {
      streams.push(
        (async () => {
          for await (const text of readStreamLines(options.stdin ?? process.stdin)) onText(text);
        })(),
      );
    } else handles.push(followLogFile(input, onText, options));
  });
  const streamsEnded = Promise.all(streams).then(() => undefined);
  const ended =
    handles.length === 0 ? streamsEnded : streamsEnded.then(() => new Promise<void>(() => undefined));

  const collect = () => {
    if (!onRead) return;
    const read = fresh;
    fresh = createStatsState(kit.capabilities, timelineMs);
    mergeStatsState(interval, read);
    onRead(read);
  };
  const flush = () => {
    collect();
    const done = interval;
    interval = createStatsState(kit.capabilities, timelineMs);
    if (!onRead) fresh = interval;
    mergeStatsState(total, done);
    const totalSummary = summarizeStats(total, meta);
    options.onUpdate(totalSummary, summarizeStats(done, meta));
    return totalSummary;
  };
  const timer = setInterval(flush, options.intervalMs);
  return {
    ended,
    collect,
    total,
    stop() {
      clearInterval(timer);
      for (const handle of handles) handle.stop();
      return flush();
    },
  };
}
