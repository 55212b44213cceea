import { realpathSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { ProxyopsError } from '../core/errors.js';
import {
  DETECT_SAMPLE_LINES,
  detectLogFormat,
  sampleLines,
  type FormatDetection,
} from '../core/logs/detect-log-format.js';
import type { LogFormatSpec } from '../core/logs/log-format-presets.js';
import { checkLogFormatFlags, resolveLogFormat, type LogFormatSource } from './logs-stats.js';
import { peekStream } from '../shell/logs/peek-stream.js';
import { readLogInput } from '../shell/logs/read-log-input.js';
import { openPathsOf } from '../shell/process/proc-process-tree.js';
import { findRunningNginx, readRunningConfig } from '../shell/nginx/running-nginx.js';

/** A log format and where it came from (printed on stderr, and `formatSource` of `--json`). */
export interface FormatChoice {
  spec: LogFormatSpec;
  source: string;
  /** Named by --preset, --log-format or --nginx-conf rather than chosen here. */
  fromFlags: boolean;
}

/** Bytes of each input read for the lines the formats are tried on. */
const SAMPLE_BYTES = 64 * 1024;

/** The first lines of an input, and standard input given back whole when it was the one read. */
async function sampleInput(
  input: string,
  stdin: Readable | undefined,
): Promise<{ lines: string[]; stdin: Readable | undefined }> {
  if (input === '-') {
    const peeked = await peekStream(stdin ?? process.stdin, SAMPLE_BYTES);
    return {
      lines: sampleLines(peeked.head.toString('latin1'), undefined, peeked.ended),
      stdin: peeked.stream,
    };
  }
  let text = '';
  for await (const chunk of readLogInput(input)) {
    text += chunk;
    if (text.length >= SAMPLE_BYTES) break;
  }
  return { lines: sampleLines(text), stdin };
}

/**
 * The path with every link resolved, else the path as given. Synchronous, as the /proc reads below: a
 * promise here was a hop to libuv's thread pool, and on a loaded host each hop waits for a core.
 */
function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The access_log of a running nginx that writes `input`, when its format parses the sample. */
async function formatFromRunningNginx(input: string, lines: string[]): Promise<FormatChoice | null> {
  const file = realpathOr(input);
  // nginx's master holds open every log it writes to a fixed path (the only ones matched here): one
  // without the file, or the live log of this rotated copy, open is not asked for its config, which
  // costs `nginx -V` and a read of the whole config (on a host running other nginx instances, most of
  // a one-line run). One whose open files this user may not see is asked, as before.
  const holdsLog = async (pid: number) => {
    const { liveLogPath } = await import('../core/nginx-config/configured-logs.js');
    const open = openPathsOf(pid);
    return open === null || open.has(file) || open.has(liveLogPath(file));
  };
  for (const master of await findRunningNginx(holdsLog)) {
    // A master whose config this user cannot read, or that is being replaced, tells nothing.
    const config = await readRunningConfig(master).catch(() => null);
    const found = config
      ? (await import('../core/nginx-config/configured-logs.js')).accessLogFor(config, master.prefix, file)
      : null;
    if (!found || !detectLogFormat(lines, [found.spec]).spec) continue;
    return {
      spec: found.spec,
      source: `running nginx (pid ${master.pid}): access_log at ${found.log.where}, log_format ${found.spec.name}`,
      fromFlags: false,
    };
  }
  return null;
}

/** The error for a log most of whose lines no known format parses: the closest format, its flag, a sample. */
export function noFormatMatches(input: string, detection: FormatDetection): ProxyopsError {
  const closest = detection.closest;
  const hint = closest
    ? `closest known format: ${closest.spec.name} (${closest.hits} of ${detection.sampled} lines), select it with --preset ${closest.spec.name}`
    : "no known format parses any of them; give the nginx log_format with --log-format '...'";
  const sample =
    detection.unmatched === null
      ? ''
      : `; a line not matched: ${JSON.stringify(detection.unmatched.slice(0, 200))}`;
  return new ProxyopsError(
    'LOG_FORMAT_UNKNOWN',
    `${input}: most of the first ${detection.sampled} lines match no known log format; ${hint}${sample}`,
    { details: { closest: closest?.spec.name ?? null } },
  );
}

/**
 * The error for a run read with a named format (or one chosen here) most of whose lines it does not
 * parse: how many it missed, and the known format that parses most of `lines`, the first non-empty
 * lines of `input` (`sampleWhat` says which lines those are).
 */
export function namedFormatMisses(
  input: string,
  given: string,
  run: { lines: number; malformed: number },
  lines: string[],
  sampleWhat: string,
  unmatched: string | null,
): ProxyopsError {
  const detection = detectLogFormat(lines);
  const closest = detection.closest;
  const hint = closest
    ? `closest known format: ${closest.spec.name} (parses ${closest.hits} of ${sampleWhat}), select it with --preset ${closest.spec.name}`
    : "no known format parses any of them; give the nginx log_format with --log-format '...'";
  const sample = unmatched === null ? '' : `; a line not matched: ${JSON.stringify(unmatched.slice(0, 200))}`;
  return new ProxyopsError(
    'LOG_FORMAT_UNKNOWN',
    `${input}: ${run.malformed} of ${run.lines} lines do not match format ${given}; ${hint}${sample}`,
    { details: { closest: closest?.spec.name ?? null } },
  );
}

/** The first non-empty lines of a file input (DETECT_SAMPLE_LINES of them at most). */
export async function firstLinesOf(input: string): Promise<string[]> {
  return (await sampleInput(input, undefined)).lines;
}

/**
 * The format to read `inputs` with: the flags when given; else the format of the running nginx's
 * access_log writing the first input that has lines; else the known format that parses most of the
 * first non-empty lines of the inputs, in order.
 */
export async function chooseLogFormat(
  inputs: string[],
  source: LogFormatSource,
  stdin: Readable | undefined,
): Promise<{ choice: FormatChoice; stdin: Readable | undefined }> {
  if (source.nginxConf !== undefined && source.formatName === undefined) {
    checkLogFormatFlags(source);
    const { readLogFormatOfInputs } = await import('../shell/logs/read-log-format-from-config.js');
    const spec = await readLogFormatOfInputs(source.nginxConf, inputs);
    return {
      choice: { spec, source: `--nginx-conf ${source.nginxConf}: log_format ${spec.name}`, fromFlags: true },
      stdin,
    };
  }
  if (source.logFormat !== undefined || source.nginxConf !== undefined || source.preset !== undefined) {
    const spec = await resolveLogFormat(source);
    const flag =
      source.preset !== undefined
        ? `--preset ${source.preset}`
        : source.nginxConf !== undefined
          ? `--nginx-conf ${source.nginxConf} --format-name ${source.formatName}`
          : '--log-format';
    return { choice: { spec, source: flag, fromFlags: true }, stdin };
  }
  await resolveLogFormat(source); // the checks of lone --escape / --format-name
  const sample = await sampleInputs(inputs.length > 0 ? inputs : ['-'], stdin);
  if (sample.lines.length === 0)
    return {
      choice: {
        spec: await resolveLogFormat({ preset: 'proxyops' }),
        source: 'default: no lines to detect a format from',
        fromFlags: false,
      },
      stdin: sample.stdin,
    };
  // The running nginx is asked about the first input that has lines (a rotated copy matches its live log).
  const first = sample.from[0]!;
  const running = first === '-' ? null : await formatFromRunningNginx(first, sample.lines);
  if (running) return { choice: running, stdin: sample.stdin };
  const detection = detectLogFormat(sample.lines);
  if (!detection.spec) throw noFormatMatches(sample.from.join(', '), detection);
  const hits = detection.closest?.hits ?? 0;
  return {
    choice: {
      spec: detection.spec,
      source: `detected: parses ${hits} of the first ${detection.sampled} lines of ${sample.from.join(', ')}`,
      fromFlags: false,
    },
    stdin: sample.stdin,
  };
}

/**
 * The first non-empty lines of the inputs, in order, up to DETECT_SAMPLE_LINES: an empty input (the
 * live log just after logrotate) gives none and the next input is read. `from` names the inputs the
 * lines came from.
 */
async function sampleInputs(
  inputs: string[],
  stdin: Readable | undefined,
): Promise<{ lines: string[]; from: string[]; stdin: Readable | undefined }> {
  const lines: string[] = [];
  const from: string[] = [];
  for (const input of inputs) {
    if (lines.length >= DETECT_SAMPLE_LINES) break;
    const one = await sampleInput(input, stdin);
    stdin = one.stdin;
    if (one.lines.length === 0) continue;
    lines.push(...one.lines.slice(0, DETECT_SAMPLE_LINES - lines.length));
    from.push(input);
  }
  return { lines, from, stdin };
}
