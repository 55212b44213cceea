// `logs stats` runs dozens of times in an incident and in every pipeline check: what only some runs
// need (--follow, --html, an nginx config's log_format) is imported where it is used (bench:cli).
import { writeFile } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { ProxyopsError } from './core/errors.js';
import { evaluateFailIf, failIfMetric, parseFailIf, type FailIfExpr } from './core/logs/fail-if.js';
import { parseStatusFilter, parseUpstreamFilter, type LogFilter } from './core/logs/log-filter.js';
import { renderStatsProm } from './core/logs/render-stats-prom.js';
import { renderStatsTable } from './core/logs/render-stats-table.js';
import { summarizeStats, toIntervalLine, type StatsSummary } from './core/logs/summarize-stats.js';
import { createStatsState } from './core/logs/stats-state.js';
import { parseListenAddress } from './core/parse-listen-address.js';
import { parseJobs } from './core/logs/parse-jobs-option.js';
import { INTERVAL_BOUNDS, parseDuration, parseTimeOption } from './core/logs/parse-time-option.js';
import { chooseLogFormat, noFormatMatches, type FormatChoice } from './choose-log-format.js';
import { detectLogFormat } from './core/logs/detect-log-format.js';
import {
  computeLogStats,
  describeDamage,
  prepareLogStats,
  type LogDamage,
  type LogFormatSource,
} from './logs-stats.js';
import { createProgressLine } from './shell/progress-line.js';
import { assertNotAnInput, assertWritableDir } from './shell/check-report-target.js';

/** The options of `proxyops logs stats`, as commander hands them over. */
export interface LogsStatsCommandOptions extends LogFormatSource {
  since?: string;
  until?: string;
  status?: string;
  path?: string;
  upstream?: string[];
  json?: boolean;
  ndjson?: boolean;
  prom?: boolean;
  html?: string;
  failIf?: string[];
  follow?: boolean;
  /** HOST:PORT where a --follow run serves its live HTML report. */
  serve?: string;
  interval?: string;
  jobs?: string;
  quiet?: boolean;
}

/** Where the command writes; the CLI passes the process's streams. */
export interface CommandIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  /** The clock of the progress line; tests give their own. */
  now?: () => number;
  /** Resolves when the user asks a --follow run to end (SIGINT); tests resolve it themselves. */
  untilStopped?: Promise<void>;
}

/** The exit code of a run that read a damaged `.gz` input: bad input (cli/exit-codes.ts), not a finding. */
const DAMAGED_INPUT_EXIT = 2;

/** Runs `logs stats`; resolves with the exit code (1 when a --fail-if holds, 2 when an input was damaged). */
export async function runLogsStatsCommand(
  inputs: string[],
  options: LogsStatsCommandOptions,
  io: CommandIo,
): Promise<number> {
  const outputs = [options.json, options.ndjson, options.prom].filter(Boolean).length;
  if (outputs > 1) throw new ProxyopsError('BAD_OPTION', 'give only one of --json, --ndjson, --prom');
  if (inputs.length === 0) {
    if (io.stdin.isTTY) throw new ProxyopsError('BAD_OPTION', 'give log files, or - to read standard input');
    inputs = ['-'];
  }
  const filter = toFilter(options, Date.now());
  const failIf = (options.failIf ?? []).map((text) => ({ text, expr: parseFailIf(text) }));
  const jobs = options.jobs === undefined ? undefined : parseJobs(options.jobs);
  if (options.serve !== undefined && !options.follow)
    throw new ProxyopsError(
      'BAD_OPTION',
      '--serve needs --follow (the report of a finished run is --html FILE)',
    );
  const serve = options.serve === undefined ? undefined : parseListenAddress(options.serve, '--serve');
  // A live page is looked at during an incident: it shows a new line within seconds by default.
  const intervalMs =
    options.interval !== undefined
      ? parseDuration(options.interval, '--interval', INTERVAL_BOUNDS)
      : options.follow
        ? serve
          ? 2_000
          : 10_000
        : 60_000;
  if (options.html !== undefined) {
    if (options.html === '') throw new ProxyopsError('BAD_OPTION', '--html: name the report file');
    await assertWritableDir(options.html);
    await assertNotAnInput(options.html, inputs, (io.stdin as { fd?: unknown }).fd);
  }
  // Reading io.stdin makes process.stdin, a stream whose set-up is a tenth of a one-line run: only "-" needs it.
  const { choice, stdin } = await chooseLogFormat(
    inputs,
    options,
    inputs.includes('-') ? io.stdin : undefined,
  );
  const spec = choice.spec;
  // A format the user named needs no word; one we chose is said once, where a pipeline's log shows it.
  const sayFormat = () => {
    if (!choice.fromFlags && !options.quiet)
      io.stderr.write(`proxyops: format ${spec.name} (${choice.source})\n`);
  };
  const color = Boolean(io.stdout.isTTY) && !io.env.NO_COLOR;

  if (options.follow) {
    const kit = prepareLogStats(spec, filter);
    sayFormat();
    const meta = { format: spec.name, formatSource: choice.source, inputs };
    const live = serve
      ? await (
          await import('./live-report.js')
        ).startLiveReport(serve.host, serve.port, summarizeStats(createStatsState(kit.capabilities), meta))
      : undefined;
    if (live) io.stderr.write(`proxyops: live report at ${live.url}\n`);
    // Evaluated at every update, not only at the end: a followed log is watched for the condition,
    // and the run ends (exit 1) as soon as one holds.
    let tripped: () => void = () => undefined;
    const holds = new Promise<void>((resolve) => (tripped = resolve));
    const { followLogStats } = await import('./logs-follow.js');
    const handle = followLogStats({
      inputs,
      spec,
      filter,
      intervalMs,
      stdin,
      formatSource: choice.source,
      onUpdate(total, interval) {
        live?.update(total);
        if (options.ndjson) io.stdout.write(JSON.stringify(toIntervalLine(interval, Date.now())) + '\n');
        else if (options.json) io.stdout.write(JSON.stringify(total) + '\n');
        else if (options.prom) io.stdout.write(renderStatsProm(total));
        else io.stdout.write((color ? '\x1b[H\x1b[2J' : '\n') + renderStatsTable(total, { color }));
        if (failIf.some(({ expr }) => evaluateFailIf(expr, total))) tripped();
      },
    });
    const stopped =
      io.untilStopped ?? new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    // A failed input ends the run too: left running, its timer and followers keep the process alive.
    await Promise.race([stopped, handle.ended, holds]).catch(async (error: unknown) => {
      handle.stop();
      await live?.close();
      throw error;
    });
    const summary = handle.stop();
    await live?.close();
    return finish(summary, failIf, options, io, false);
  }

  // Progress only for a person watching: never on a pipe, never beside machine output, not when asked.
  const machine = options.json || options.ndjson || options.prom;
  const progress =
    io.stderr.isTTY && !machine && !options.quiet ? createProgressLine(io.stderr, io.now) : undefined;
  const damaged: LogDamage[] = [];
  const summary = await computeLogStats({
    inputs,
    spec,
    formatSource: choice.source,
    filter,
    intervalMs,
    jobs,
    stdin,
    onProgress: progress?.update,
    onDamage: (found) => damaged.push(...found),
  }).finally(() => progress?.clear());
  assertMostLinesRead(summary, choice);
  sayFormat();
  if (options.json) io.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  else if (options.ndjson)
    for (const point of summary.timeline.points) io.stdout.write(JSON.stringify(point) + '\n');
  else if (options.prom) io.stdout.write(renderStatsProm(summary));
  else io.stdout.write(renderStatsTable(summary, { color }));
  const code = await finish(summary, failIf, options, io, !(options.json || options.ndjson || options.prom));
  // A damaged .gz input: what could be read is counted and shown, and the exit code says the input
  // was damaged (2, bad input), whatever --fail-if found.
  for (const damage of damaged) io.stderr.write(`proxyops: ${describeDamage(damage)}\n`);
  return damaged.length > 0 ? DAMAGED_INPUT_EXIT : code;
}

async function finish(
  summary: StatsSummary,
  failIf: Array<{ text: string; expr: FailIfExpr }>,
  options: LogsStatsCommandOptions,
  io: CommandIo,
  tableShown: boolean,
): Promise<number> {
  if (options.html !== undefined) {
    const { renderStatsHtml } = await import('./core/logs/render-stats-html.js');
    await writeFile(options.html, renderStatsHtml(summary)).catch((error: unknown) => {
      throw new ProxyopsError('WRITE_FAILED', `cannot write ${options.html}: ${(error as Error).message}`, {
        cause: error,
      });
    });
  }
  if (!tableShown && summary.malformed.count > 0) {
    io.stderr.write(`proxyops: ${summary.malformed.count} malformed line(s); first:\n`);
    for (const s of summary.malformed.samples) io.stderr.write(`  ${s.input}:${s.line}: ${s.text}\n`);
  }
  let code = 0;
  for (const { text, expr } of failIf) {
    if (!evaluateFailIf(expr, summary)) continue;
    const values = metricsOf(expr)
      .map((m) => `${m}=${failIfMetric(summary, m)}`)
      .join(' ');
    io.stderr.write(`proxyops: --fail-if holds: ${text} (${values})\n`);
    code = 1;
  }
  return code;
}

/**
 * A run where most lines matched no format found nothing usable: an error (exit 2) naming the
 * closest known format, never "0 records" and exit 0.
 */
function assertMostLinesRead(summary: StatsSummary, choice: FormatChoice): void {
  if (summary.malformed.count * 2 <= summary.lines) return;
  const samples = summary.malformed.samples.map((sample) => sample.text);
  const detection = detectLogFormat(samples);
  const input = summary.malformed.samples[0]?.input ?? summary.inputs[0] ?? '-';
  throw noFormatMatches(
    input,
    { ...detection, sampled: summary.lines, unmatched: samples[0] ?? null },
    choice.spec.name,
  );
}

function metricsOf(expr: FailIfExpr): string[] {
  if (expr.kind === 'compare') return [expr.metric];
  if (expr.kind === 'not') return metricsOf(expr.expr);
  return [...new Set([...metricsOf(expr.left), ...metricsOf(expr.right)])];
}

function toFilter(options: LogsStatsCommandOptions, nowMs: number): LogFilter {
  const filter: LogFilter = {};
  if (options.since !== undefined) filter.sinceMs = parseTimeOption(options.since, '--since', nowMs);
  if (options.until !== undefined) filter.untilMs = parseTimeOption(options.until, '--until', nowMs);
  if (options.status !== undefined) filter.status = parseStatusFilter(options.status);
  if (options.path !== undefined) filter.path = options.path;
  if (options.upstream?.length) filter.upstream = options.upstream.map(parseUpstreamFilter);
  return filter;
}
