// fs.promises is read at each call: importing node:fs/promises would load it (and readline) at start.
import { promises as fsp } from 'node:fs';
// `logs stats` runs dozens of times in an incident and in every pipeline check: what only some runs
// need (--follow, --html, an nginx config's log_format) is imported where it is used (bench:cli).
import type { Readable } from 'node:stream';
import { ProxyopsError } from '../core/errors.js';
import {
  evaluateFailIf,
  failIfMetric,
  formatFailIfValue,
  parseFailIf,
  type FailIfExpr,
} from '../core/logs/fail-if.js';
import { parseStatusFilter, parseUpstreamFilter, type LogFilter } from '../core/logs/log-filter.js';
import { renderStatsTable } from '../core/logs/render-stats-table.js';
import { toIntervalLine, type StatsSummary } from '../core/logs/summarize-stats.js';
import { parseJobs } from '../core/logs/parse-jobs-option.js';
import { INTERVAL_BOUNDS, parseDuration, parseTimeOption } from '../core/logs/parse-time-option.js';
import { chooseLogFormat, firstLinesOf, namedFormatMisses, type FormatChoice } from './choose-log-format.js';
import { collectLogStats, prepareLogStats, type LogFormatSource } from './logs-stats.js';
import { describeDamage } from '../core/logs/log-damage.js';
import { createProgressLine } from '../shell/logs/progress-line.js';
import { assertNotAnInput, assertWritableDir } from '../shell/check-report-target.js';
import { summarizeStats } from '../core/logs/summarize-stats.js';
import type { StatsState } from '../core/logs/stats-state.js';
import type { FactsCapabilities } from '../core/logs/line-facts.js';
import type { LogFormatSpec } from '../core/logs/log-format-presets.js';
import { parseMetricLabels } from '../core/logs/log-metric-labels.js';
import { createStatsState, MAX_TIMELINE_POINTS } from '../core/logs/stats-state.js';
import { listenUrl, parseListenAddress } from '../core/parse-listen-address.js';
import type { RouteHandler } from '../shell/http/serve-http-routes.js';

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
  interval?: string;
  jobs?: string;
  stateOut?: string;
  metricsListen?: string;
  promTextfile?: string;
  label?: string[];
  /** HOST:PORT where a --follow run serves its live HTML report (may be --metrics-listen's too). */
  serve?: string;
  quiet?: boolean;
}

/** The outputs `logs stats` and `logs merge` share. */
export type StatsOutputOptions = Pick<
  LogsStatsCommandOptions,
  'json' | 'ndjson' | 'prom' | 'html' | 'failIf' | 'stateOut' | 'promTextfile' | 'label'
>;

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

/** Runs `logs stats`; resolves with the exit code (1 when a --fail-if holds). */
export async function runLogsStatsCommand(
  inputs: string[],
  options: LogsStatsCommandOptions,
  io: CommandIo,
): Promise<number> {
  const checked = await checkOutputOptions(options, inputs, io);
  const listen =
    options.metricsListen === undefined
      ? undefined
      : parseListenAddress(options.metricsListen, '--metrics-listen');
  if (listen && !options.follow)
    throw new ProxyopsError(
      'BAD_OPTION',
      '--metrics-listen needs --follow (a one-off run can write --prom-textfile)',
    );
  if (options.serve !== undefined && !options.follow)
    throw new ProxyopsError(
      'BAD_OPTION',
      '--serve needs --follow (the report of a finished run is --html FILE)',
    );
  const serve = options.serve === undefined ? undefined : parseListenAddress(options.serve, '--serve');
  if (options.stateOut === '-' && options.follow)
    throw new ProxyopsError(
      'BAD_OPTION',
      '--state-out - needs a run that ends (a --follow run prints its updates on stdout)',
    );
  // Without inputs, standard input is read when it is not a terminal (`zcat old.gz | proxyops logs
  // stats`); when it turns out empty the run is refused below (cron's /dev/null, an empty $(ls …)).
  const implicitStdin = inputs.length === 0;
  if (implicitStdin) {
    if (io.stdin.isTTY) throw noInputs('no log files given');
    inputs = ['-'];
  }
  const filter = toFilter(options, Date.now());
  if (filter.upstream && options.nginxConf !== undefined) {
    const { readNginxConfig } = await import('../shell/nginx/read-nginx-config.js');
    const { withGroupMembers } = await import('../core/logs/upstream-group-members.js');
    filter.upstream = withGroupMembers(filter.upstream, await readNginxConfig(options.nginxConf));
  }
  const { failIf } = checked;
  const jobs = options.jobs === undefined ? undefined : parseJobs(options.jobs);
  const intervalMs =
    options.interval !== undefined
      ? parseDuration(options.interval, '--interval', INTERVAL_BOUNDS)
      : options.follow
        ? serve
          ? 2_000
          : 10_000
        : 60_000;
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
    // Evaluated at every update, not only at the end: a followed log is watched for the condition,
    // and the run ends (exit 1) as soon as one holds.
    let tripped: () => void = () => undefined;
    const holds = new Promise<void>((resolve) => (tripped = resolve));
    const { followLogStats } = await import('./logs-follow.js');
    const metrics = checked.metricLabels
      ? await createMetrics(checked.metricLabels, kit.capabilities)
      : undefined;
    // --prom prints the metrics' text at each update, in order (the text is made asynchronously).
    let promPrinted = Promise.resolve();
    const printProm = () => {
      if (!metrics) return;
      promPrinted = promPrinted.then(async () => {
        io.stdout.write(await metrics.text());
      });
    };
    const writeTextfile = () =>
      metrics && options.promTextfile !== undefined
        ? writePromTextfile(options.promTextfile, metrics)
        : Promise.resolve();
    // Listening first: a busy port fails the run before anything is read or printed.
    let collect: () => void = () => undefined;
    const { live, close: closeListeners } = await startListeners(
      {
        ...(listen && metrics
          ? { metrics: { at: listen, routes: metricsRoutes(metrics, () => collect()) } }
          : {}),
        ...(serve
          ? {
              serve: {
                at: serve,
                first: summarizeStats(createStatsState(kit.capabilities), {
                  format: spec.name,
                  formatSource: choice.source,
                  inputs,
                }),
              },
            }
          : {}),
      },
      io,
    );
    let handle: ReturnType<typeof followLogStats>;
    try {
      handle = followLogStats({
        inputs,
        spec,
        filter,
        intervalMs,
        stdin,
        formatSource: choice.source,
        onRead: metrics ? (delta) => metrics.add(delta) : undefined,
        onUpdate(total, interval) {
          live?.update(total);
          // A failed write of the textfile is said, and the run goes on: the next update writes it again.
          writeTextfile().catch((error: unknown) => {
            io.stderr.write(`proxyops: cannot write ${options.promTextfile}: ${(error as Error).message}\n`);
          });
          if (options.ndjson) io.stdout.write(JSON.stringify(toIntervalLine(interval, Date.now())) + '\n');
          else if (options.json) io.stdout.write(JSON.stringify(total) + '\n');
          else if (options.prom) printProm();
          else io.stdout.write((color ? '\x1b[H\x1b[2J' : '\n') + renderStatsTable(total, { color }));
          if (failIf.some(({ expr }) => evaluateFailIf(expr, total))) tripped();
        },
      });
      collect = () => handle.collect();
    } catch (error) {
      await closeListeners();
      throw error;
    }
    const stopped =
      io.untilStopped ?? new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
    // A failed input ends the run too: left running, its timer and followers keep the process alive.
    try {
      await Promise.race([stopped, handle.ended, holds]).catch((error: unknown) => {
        handle.stop();
        throw error;
      });
    } finally {
      await closeListeners();
    }
    const summary = handle.stop();
    await promPrinted;
    await writeTextfile();
    await writeState(options.stateOut, handle.total, spec, choice.source, inputs, io);
    return finish(summary, failIf, options, io, false);
  }

  // Progress only for a person watching: never on a pipe, never beside machine output, not when asked.
  const machine = options.json || options.ndjson || options.prom;
  const progress =
    io.stderr.isTTY && !machine && !options.quiet ? createProgressLine(io.stderr, io.now) : undefined;
  const state = await collectLogStats({
    inputs,
    spec,
    formatSource: choice.source,
    filter,
    intervalMs,
    jobs,
    stdin,
    onProgress: progress?.update,
  }).finally(() => progress?.clear());
  const summary = summarizeStats(state, { format: spec.name, formatSource: choice.source, inputs });
  // A damaged .gz that gave no line is said below as damaged, not as empty.
  if (state.damaged.length === 0) assertSomethingRead(summary, implicitStdin, options.stateOut === '-');
  await assertMostLinesRead(summary, choice);
  sayFormat();
  // The timeline keeps at most MAX_TIMELINE_POINTS points, doubling its interval past them: an interval
  // the user gave is not changed without a word (on stderr, so --json stays one document).
  if (options.interval !== undefined && state.intervalMs > intervalMs && !options.quiet)
    io.stderr.write(
      `proxyops: --interval ${options.interval}: these logs span more than ${MAX_TIMELINE_POINTS} such intervals, so the timeline is per ${state.intervalMs / 1000} s; narrow the time with --since/--until or give a wider --interval\n`,
    );
  return writeStatsOutputs(state, summary, checked, options, io, spec, true);
}

/** The exit code of a run that read a damaged `.gz` input: bad input (cli/exit-codes.ts), not a finding. */
export const DAMAGED_INPUT_EXIT = 2;

/** Checks the output options before anything is read: one stdout format, writable report targets. */
export async function checkOutputOptions(
  options: StatsOutputOptions,
  inputs: string[],
  io: CommandIo,
): Promise<{ failIf: Array<{ text: string; expr: FailIfExpr }>; metricLabels?: Record<string, string> }> {
  const outputs = [options.json, options.ndjson, options.prom, options.stateOut === '-'].filter(Boolean);
  if (outputs.length > 1)
    throw new ProxyopsError('BAD_OPTION', 'give only one of --json, --ndjson, --prom, --state-out -');
  const failIf = (options.failIf ?? []).map((text) => ({ text, expr: parseFailIf(text) }));
  const metricLabels = parseMetricLabels(options.label ?? []);
  const wantsMetrics =
    Boolean(options.prom) ||
    options.promTextfile !== undefined ||
    (options as LogsStatsCommandOptions).metricsListen !== undefined;
  if (!wantsMetrics && options.label?.length)
    throw new ProxyopsError(
      'BAD_OPTION',
      '--label labels the metrics of --prom, --metrics-listen or --prom-textfile: give one',
    );
  // Read only for an output file: reading io.stdin makes process.stdin (see chooseLogFormat above).
  const stdinFd = () => (io.stdin as { fd?: unknown }).fd;
  for (const [flag, file, noun] of [
    ['--html', options.html, 'report'],
    ['--state-out', options.stateOut, 'state'],
    ['--prom-textfile', options.promTextfile, 'metrics'],
  ] as const) {
    // `--state-out -`: the state on stdout, in place of the report (a pipe, or a host read over ssh).
    if (file === undefined || (flag === '--state-out' && file === '-')) continue;
    if (file === '') throw new ProxyopsError('BAD_OPTION', `${flag}: name the ${noun} file`);
    await assertWritableDir(file, flag, noun);
    await assertNotAnInput(file, inputs, stdinFd(), flag, noun);
  }
  return { failIf, metricLabels: wantsMetrics ? metricLabels : undefined };
}

/**
 * Writes a finished run's outputs (stdout, --state-out, --prom-textfile, --html), applies --fail-if and
 * says the damaged `.gz` inputs the state holds (those of this run, or of the runs it merges).
 * `readDamage`: this run read the inputs (a run here or on hosts), so a damaged one is its exit code;
 * a merge of kept states only repeats what the run that read them said with its exit code.
 */
export async function writeStatsOutputs(
  state: StatsState,
  summary: StatsSummary,
  checked: { failIf: Array<{ text: string; expr: FailIfExpr }>; metricLabels?: Record<string, string> },
  options: StatsOutputOptions,
  io: CommandIo,
  spec: LogFormatSpec,
  readDamage: boolean,
): Promise<number> {
  const color = Boolean(io.stdout.isTTY) && !io.env.NO_COLOR;
  // With `--state-out -` the state is the output (written below) and the report is left out.
  const stateOnStdout = options.stateOut === '-';
  // --prom and --prom-textfile are one text: the metrics of docs/access-logs.md, of what the format can give.
  const metrics = checked.metricLabels
    ? await createMetrics(checked.metricLabels, state.capabilities)
    : undefined;
  metrics?.add(state);
  if (options.json) io.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  else if (options.ndjson)
    for (const point of summary.timeline.points) io.stdout.write(JSON.stringify(point) + '\n');
  else if (options.prom && metrics) io.stdout.write(await metrics.text());
  else if (!stateOnStdout) io.stdout.write(renderStatsTable(summary, { color }));
  await writeState(options.stateOut, state, spec, summary.formatSource, summary.inputs, io);
  if (options.promTextfile !== undefined && metrics) await writePromTextfile(options.promTextfile, metrics);
  const code = await finish(
    summary,
    checked.failIf,
    options,
    io,
    stateOnStdout || !(options.json || options.ndjson || options.prom),
  );
  // A damaged .gz input: what could be read is counted and shown, and the exit code of the run that
  // read it says the input was damaged (2, bad input), whatever --fail-if found. A merge says so again
  // (the total is as partial as the part) but keeps --fail-if's code: a roll-up of a week of kept
  // states would otherwise hide every threshold breach for as long as one damaged day is in it.
  for (const damage of state.damaged) io.stderr.write(`proxyops: ${describeDamage(damage)}\n`);
  return readDamage && state.damaged.length > 0 ? DAMAGED_INPUT_EXIT : code;
}

async function createMetrics(labels: Record<string, string>, capabilities: FactsCapabilities) {
  const { createLogMetrics } = await import('./log-metrics.js');
  return createLogMetrics(labels, capabilities);
}

/** Readable by node_exporter, which runs as another user. */
const TEXTFILE_MODE = 0o644;

async function writePromTextfile(path: string, metrics: { text(): Promise<string> }): Promise<void> {
  const { writeAtomically } = await import('../shell/stack-state.js');
  await writeAtomically(path, await metrics.text(), TEXTFILE_MODE).catch((error: unknown) => {
    throw new ProxyopsError('WRITE_FAILED', `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  });
}

async function writeState(
  path: string | undefined,
  state: StatsState,
  format: LogFormatSpec,
  formatSource: string,
  inputs: string[],
  io: CommandIo,
): Promise<void> {
  if (path === undefined) return;
  const { toStateDocument } = await import('../core/logs/stats-state-document.js');
  const text = JSON.stringify(toStateDocument(state, { format, formatSource, inputs })) + '\n';
  if (path === '-') {
    io.stdout.write(text);
    return;
  }
  const { writeAtomically } = await import('../shell/stack-state.js');
  await writeAtomically(path, text).catch((error: unknown) => {
    throw new ProxyopsError('WRITE_FAILED', `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  });
}

function metricsRoutes(
  metrics: { text(): Promise<string>; contentType: string },
  collect: () => void,
): Record<string, RouteHandler> {
  return {
    '/metrics': async (_request, response) => {
      collect();
      const body = await metrics.text();
      response.writeHead(200, { 'content-type': metrics.contentType }).end(body);
    },
  };
}

type ListenAt = { host: string; port: number };

/**
 * Starts the follow run's listeners: /metrics (--metrics-listen) and the live page (--serve). Given
 * the same HOST:PORT, one listener serves both.
 */
async function startListeners(
  wanted: {
    metrics?: { at: ListenAt; routes: Record<string, RouteHandler> };
    serve?: { at: ListenAt; first: StatsSummary };
  },
  io: CommandIo,
): Promise<{ live?: { update(summary: StatsSummary): void }; close(): Promise<void> }> {
  if (!wanted.metrics && !wanted.serve) return { close: async () => undefined };
  const { serveHttpRoutes } = await import('../shell/http/serve-http-routes.js');
  const live = wanted.serve && (await import('./live-report.js')).liveReportRoutes(wanted.serve.first);
  const same =
    wanted.metrics &&
    wanted.serve &&
    wanted.metrics.at.host === wanted.serve.at.host &&
    wanted.metrics.at.port === wanted.serve.at.port;
  const plans: Array<{ at: ListenAt; routes: Record<string, RouteHandler>; option: string }> = [];
  if (same)
    plans.push({
      at: wanted.metrics!.at,
      routes: { ...wanted.metrics!.routes, ...live!.routes },
      option: '--metrics-listen',
    });
  else {
    if (wanted.metrics) plans.push({ ...wanted.metrics, option: '--metrics-listen' });
    if (wanted.serve) plans.push({ at: wanted.serve.at, routes: live!.routes, option: '--serve' });
  }
  const servers: Array<{ close(): Promise<void> }> = [];
  const close = async () => {
    live?.close();
    await Promise.all(servers.map((server) => server.close()));
  };
  try {
    for (const plan of plans) {
      const server = await serveHttpRoutes(plan.at.host, plan.at.port, plan.routes, plan.option);
      servers.push(server);
      if (plan.routes['/metrics'])
        io.stderr.write(`proxyops: metrics on ${listenUrl(server.host, server.port)}metrics\n`);
      if (plan.routes['/'])
        io.stderr.write(`proxyops: live report at ${listenUrl(server.host, server.port)}\n`);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { ...(live ? { live } : {}), close };
}

async function finish(
  summary: StatsSummary,
  failIf: Array<{ text: string; expr: FailIfExpr }>,
  options: StatsOutputOptions,
  io: CommandIo,
  /** The malformed lines are already in the output (the table lists them; a state holds its samples). */
  malformedShown: boolean,
): Promise<number> {
  if (options.html !== undefined) {
    const { renderStatsHtml } = await import('../core/logs/render-stats-html.js');
    await fsp.writeFile(options.html, renderStatsHtml(summary)).catch((error: unknown) => {
      throw new ProxyopsError('WRITE_FAILED', `cannot write ${options.html}: ${(error as Error).message}`, {
        cause: error,
      });
    });
  }
  if (!malformedShown && summary.malformed.count > 0) {
    io.stderr.write(`proxyops: ${summary.malformed.count} malformed line(s); first:\n`);
    for (const s of summary.malformed.samples) io.stderr.write(`  ${s.input}:${s.line}: ${s.text}\n`);
  }
  let code = 0;
  for (const { text, expr } of failIf) {
    // A gate that can never fire is said out loud: its metric is not in these logs.
    const missing = metricsOf(expr).filter((m) => failIfMetric(summary, m) === null);
    if (missing.length > 0)
      io.stderr.write(
        `proxyops: warning: --fail-if ${text}: these logs give no ${missing.join(', ')} (not in their format), so that part never holds\n`,
      );
    // Said either way: a gate that stays quiet cannot be told from one that never ran.
    const values = metricsOf(expr)
      .map((m) => `${m}=${formatFailIfValue(m, failIfMetric(summary, m))}`)
      .join(' ');
    const holds = evaluateFailIf(expr, summary);
    io.stderr.write(`proxyops: --fail-if ${holds ? 'holds' : 'does not hold'}: ${text} (${values})\n`);
    if (holds) code = 1;
  }
  return code;
}

/** BAD_OPTION for a run given nothing to read, with what to give instead. */
function noInputs(why: string): ProxyopsError {
  return new ProxyopsError('BAD_OPTION', `${why}: give log files, or - to read standard input explicitly`);
}

/**
 * A run with no line to count has nothing usable: an error (exit 2), never "0 records" and exit 0.
 * An explicit "-" may be empty (a pipe that filtered everything out: 0 records is its answer); standard
 * input read because no file was given may not, nor inputs that are all empty files (the live log
 * just after logrotate, alone: its lines are in the rotated copies). A state printed for a pipe
 * (`--state-out -`, how `--host` reads each host) may be empty: it is one part of a total.
 */
function assertSomethingRead(summary: StatsSummary, implicitStdin: boolean, statePart: boolean): void {
  if (summary.lines > 0 || (!implicitStdin && summary.inputs.includes('-'))) return;
  if (implicitStdin) throw noInputs('no log files given and standard input is empty');
  if (statePart) return;
  throw nothingToCount(summary.inputs);
}

/** Every input was empty: exit 2 with where the lines of a log just rotated are. */
export function nothingToCount(inputs: string[]): ProxyopsError {
  const all = inputs.length > 1 ? `all ${inputs.length} inputs are` : 'the input is';
  return new ProxyopsError(
    'LOG_EMPTY',
    `${inputs.join(', ')}: ${all} empty, nothing to count; a log just rotated has its lines in the rotated files: give them too (${rotatedExample(inputs[0]!)})`,
  );
}

/** `access.log.1, access.log.2.gz …` for a log named `access.log` (or one of its rotated copies). */
function rotatedExample(input: string): string {
  const live = input.replace(/\.\d+(\.gz)?$/, '');
  return `${live}.1, ${live}.2.gz …`;
}

/**
 * A run where most lines matched no format found nothing usable: an error (exit 2) naming the
 * closest known format, never "0 records" and exit 0. The closest format is tried on the first lines
 * of the input of the first line not matched (on standard input, which cannot be read again, on the
 * lines not matched that were kept).
 */
async function assertMostLinesRead(summary: StatsSummary, choice: FormatChoice): Promise<void> {
  if (summary.malformed.count * 2 <= summary.lines) return;
  const samples = summary.malformed.samples.map((sample) => sample.text);
  const input = summary.malformed.samples[0]?.input ?? summary.inputs[0] ?? '-';
  const lines = input === '-' ? [] : await firstLinesOf(input).catch(() => []);
  const others = summary.inputs.length - 1;
  throw namedFormatMisses(
    others > 0 ? `${input} and ${others} other input${others > 1 ? 's' : ''}` : input,
    choice.spec.name,
    { lines: summary.lines, malformed: summary.malformed.count },
    lines.length > 0 ? lines : samples,
    lines.length > 0
      ? `the first ${lines.length} lines${others > 0 ? ` of ${input}` : ''}`
      : `the ${samples.length} lines not matched that were kept`,
    samples[0] ?? null,
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
