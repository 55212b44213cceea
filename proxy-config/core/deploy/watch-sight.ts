import { ProxyopsError } from '../errors.js';
import { compileLogFormat } from '../logs/compile-log-format.js';
import { LOG_FORMAT_PRESETS, type LogFormatSpec } from '../logs/log-format-presets.js';
import { INSTANCE_LOG_VARIABLE, PROXYOPS_LOG_FORMAT_NAMES } from '../render/log-formats.js';

/**
 * How a deploy watches a new instance: `gates` judges its own requests in the access log (status
 * codes, request times); `readiness-only` watches only that it stays alive and ready, for a log the
 * watch cannot read, and says so on every verdict.
 */
export type WatchMode = 'gates' | 'readiness-only';

/** What every verdict of a readiness-only watch says. */
export const READINESS_ONLY = 'not watched: readiness only';

/** One `access_log` writing the watched file, with its format (null when no log_format of that name exists). */
export interface LogWriter {
  formatName: string;
  format: LogFormatSpec | null;
  /** `FILE:LINE` of the directive, or `the spec` when the running nginx was not read. */
  where: string;
  buffered: boolean;
  flushMs: number | null;
  gzip: boolean;
  /** `if=`: only the requests it holds true for are logged. */
  condition?: string;
}

/** The running nginx as far as the watch is concerned: which of its access_log lines write the watched file. */
export interface LiveLogs {
  pid: number;
  configFile: string;
  writers: LogWriter[];
  /** Every access log file it writes, for the message when none is the watched one. */
  files: string[];
  /** The locations proxying to the upstream whose requests are not logged to the file, and why. */
  silent: string[];
}

/** What the decision is made from: the spec's log, the running nginx's (when read) and the watch. */
export interface WatchSightInput {
  path: string;
  spec: { format: 'text' | 'json'; buffered: boolean; flushMs: number | null };
  /** Undefined when no running nginx was read; `notRead` then says why. */
  live?: LiveLogs;
  notRead?: string;
  /** The shortest watch of a round (deploy.watch), ms. */
  watchMs: number;
  /**
   * The longest a round's watch goes on waiting for requests (deploy.maxWatch), ms, and the longest
   * fail_timeout of an alternate-path round (its watch lasts at least that): a flush within either
   * is seen, since every watch window already grows by the flush.
   */
  maxWatchMs: number;
  retryMs?: number;
  /** Some round replaces a process behind a slot (told apart by its logged name only). */
  slots: boolean;
  latencyGate: boolean;
  /** Behind a hand-written config (adopted): no config apply renders a log_format there. */
  adopted?: boolean;
}

/** Why the watch cannot see, and what fixes it. */
export interface BlindCause {
  what: string;
  fix: string;
}

/** Whether the watch can tell the new instance's requests, and how to read them. */
export interface WatchSight {
  /** Non-empty: the watch cannot tell the new instance's requests from the rest (a gated deploy refuses). */
  blind: BlindCause[];
  /** What the watch does not see even when it can judge (shown on every verdict). */
  unseen: string[];
  /** The reader of the log: proxyops's own formats (current and previous), or the running nginx's. */
  reader: { preset: 'text' | 'json' } | { format: LogFormatSpec };
  /** A buffered log shows a request only after its flush: log windows grow by this much. */
  logDelayMs: number;
}

/** proxyops's formats, current and previous: the deploy's own reader reads both (see deployLogKit). */
const PROXYOPS_FORMATS: Record<string, 'text' | 'json'> = {
  [formatOf('proxyops')]: 'text',
  [formatOf('proxyops-1')]: 'text',
  [formatOf('proxyops-json')]: 'json',
  [formatOf('proxyops-json-1')]: 'json',
};

function formatOf(preset: string): string {
  const spec = LOG_FORMAT_PRESETS[preset]!;
  return spec.kind === 'format' ? spec.format : '';
}

/** A format to copy into a hand-written config: what the watch needs, beside what combined logs. */
export const ADOPTED_LOG_FORMAT = `log_format upstreams '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time ua="$upstream_addr" us="$upstream_status"'`;

const seconds = (ms: number) => `${ms / 1000} s`;

/** The setting to change, as its user wrote it: the spec's for a log the spec renders, nginx's otherwise. */
const flushName = (writer: LogWriter, preset: string | undefined) =>
  writer.where === 'the spec' || preset !== undefined ? 'accessLog.flush' : 'flush=';

/**
 * Can the watch see? It must read the file the running nginx writes (else it reads nothing), in a
 * format with `$status` and `$upstream_addr` (else no line says which instance answered), one format
 * for the whole file, and the lines must arrive within the watch (a buffer flushed later, or never
 * but when full, shows nothing in time). Without the running nginx, the spec's own log is judged.
 */
export function judgeWatchSight(input: WatchSightInput): WatchSight {
  const blind: BlindCause[] = [];
  const unseen: string[] = [];
  const file = input.path;
  if (input.watchMs === 0)
    blind.push({ what: 'deploy.watch is 0: nothing is watched', fix: 'set deploy.watch to a few seconds' });
  const writers: LogWriter[] = input.live
    ? input.live.writers
    : [
        {
          formatName: PROXYOPS_LOG_FORMAT_NAMES[input.spec.format],
          format: LOG_FORMAT_PRESETS[input.spec.format === 'json' ? 'proxyops-json' : 'proxyops']!,
          where: 'the spec',
          buffered: input.spec.buffered,
          flushMs: input.spec.buffered ? (input.spec.flushMs ?? null) : null,
          gzip: false,
        },
      ];
  if (!input.live)
    unseen.push(
      `the running nginx was not read (${input.notRead ?? 'none found'}): the log's format and buffering are the spec's`,
    );
  const fieldsFix = input.adopted
    ? `log $status and $upstream_addr to ${file} (and $request_time for the latency gate), for example: ${ADOPTED_LOG_FORMAT}; access_log ${file} upstreams;`
    : `log $status and $upstream_addr to ${file} (proxyops's log_format, which config apply renders, has them)`;
  const live = input.live;
  if (live && writers.length === 0)
    blind.push({
      what: `the nginx running (pid ${live.pid}, ${live.configFile}) writes no access log of upstream requests to ${file} (${live.silent.length > 0 ? live.silent.join('; ') : live.files.length === 0 ? 'none to a file' : `it writes ${live.files.join(', ')}`})`,
      fix: `point accessLog.path of the spec at the log nginx writes, or apply the spec`,
    });
  else if (live) {
    // Some of the upstream's requests are logged: the gates judge those, and the verdict names the rest.
    for (const path of live.silent) unseen.push(`requests through ${path} are not logged to ${file}`);
  }
  for (const writer of writers)
    if (writer.condition !== undefined)
      unseen.push(
        `access_log ${file} at ${writer.where} logs only when ${writer.condition} holds: requests it skips are not seen`,
      );
  // Every watch window already grows by the flush (logDelayMs), and a gated watch goes on up to
  // maxWatch: only a flush beyond the longest a round can watch leaves it nothing to read in time.
  const flushLimitMs = Math.max(input.maxWatchMs, input.watchMs, input.retryMs ?? 0);
  const readers = new Set<string>();
  let reader: WatchSight['reader'] = { preset: input.spec.format };
  for (const writer of writers) {
    const at = `access_log ${file} at ${writer.where}`;
    if (!writer.format) {
      blind.push({
        what: `${at} names log_format ${writer.formatName}, which is not defined`,
        fix: fieldsFix,
      });
      continue;
    }
    const preset = writer.format.kind === 'format' ? PROXYOPS_FORMATS[writer.format.format] : undefined;
    if (preset) {
      readers.add(`preset:${preset}`);
      reader = { preset };
    } else {
      readers.add(JSON.stringify(writer.format));
      reader = { format: writer.format };
    }
    const slots =
      writer.format.kind === 'format'
        ? compileLogFormat(writer.format.format, writer.format.escape).slots
        : {};
    const has = (name: string) => slots[name] !== undefined;
    const named = `log_format ${writer.formatName}`;
    if (!has('status') || !has('upstream_addr'))
      blind.push({
        what: `${at} uses ${named}, which has no ${has('status') ? '$upstream_addr' : '$status'}: the new instance's requests cannot be told from the others'`,
        fix: fieldsFix,
      });
    else {
      if (input.latencyGate && !has('request_time'))
        unseen.push(`${named} has no $request_time: request times are not judged`);
      if (input.slots && !has(INSTANCE_LOG_VARIABLE))
        unseen.push(
          `${named} has no $${INSTANCE_LOG_VARIABLE}: behind a slot the new process's requests are not told from the old one's (the whole window is read as the new one's)`,
        );
    }
    if (writer.gzip) blind.push({ what: `${at} is gzip-compressed`, fix: `write ${file} without gzip` });
    else if (writer.buffered && writer.flushMs === null)
      blind.push({
        what: `${at} is buffered without ${flushName(writer, preset)}: its lines reach the file only when the buffer fills`,
        fix: `add ${flushName(writer, preset)} (at most ${seconds(flushLimitMs)}) or drop the buffer`,
      });
    else if (writer.buffered && writer.flushMs! > flushLimitMs)
      blind.push({
        what: `${at} is flushed every ${seconds(writer.flushMs!)} (${flushName(writer, preset)}), longer than the watch can wait (${seconds(flushLimitMs)}: deploy.maxWatch, or the longest watch of a round)`,
        fix: `set ${flushName(writer, preset)} to at most ${seconds(flushLimitMs)}, or a longer deploy.maxWatch`,
      });
  }
  if (readers.size > 1)
    blind.push({
      what: `${file} is written in ${readers.size} formats (${writers.map((w) => `${w.formatName} at ${w.where}`).join(', ')}); the watch reads one`,
      fix: `write ${file} in one format`,
    });
  const logDelayMs = Math.max(
    0,
    ...writers.filter((w) => w.buffered && w.flushMs !== null).map((w) => w.flushMs!),
  );
  return { blind, unseen, reader, logDelayMs };
}

/**
 * The refusal of a gated watch that cannot see (WATCH_BLIND, exit 2): one line with every cause and
 * its fix, and the blind mode that runs anyway; undefined when it can see. A readiness-only watch is
 * never refused.
 */
export function watchRefusal(sight: WatchSight, mode: WatchMode): ProxyopsError | undefined {
  if (mode === 'readiness-only' || sight.blind.length === 0) return undefined;
  // A fix may end in nginx's own `;` (a directive to copy): no second one after it.
  const fixes = [...new Set(sight.blind.map((cause) => cause.fix.replace(/;$/, '')))];
  return new ProxyopsError(
    'WATCH_BLIND',
    `the deploy watch cannot judge the new instance: ${sight.blind.map((cause) => cause.what).join('; ')}; ${fixes.join('; ')}; or deploy with --watch readiness-only (deploy.watchMode), which watches only that it stays alive and ready`,
  );
}

/** Throws the refusal of a gated watch that cannot see (watchRefusal). */
export function checkWatchSight(sight: WatchSight, mode: WatchMode): void {
  const refused = watchRefusal(sight, mode);
  if (refused) throw refused;
}

/** What a watch in `mode` does not see: a readiness-only watch names itself first, then what it could not read. */
export function unseenBy(sight: WatchSight, mode: WatchMode): string[] {
  return mode === 'readiness-only'
    ? [READINESS_ONLY, ...sight.blind.map((cause) => cause.what), ...sight.unseen]
    : sight.unseen;
}

/** What a rollback's blind watch says on every verdict, before the causes. */
export const ROLLBACK_BLIND =
  'deploy rollback: the watch cannot see, so it runs readiness-only (a rollback is never refused for its log)';

/**
 * The watch a deploy runs: the mode asked for, refused when gated and blind (checkWatchSight),
 * except on `deploy rollback`: an emergency return to the known-good release is not refused for a
 * log the watch cannot read; it runs readiness-only and every verdict says so.
 */
export function chooseWatch(
  sight: WatchSight,
  requested: WatchMode,
  rollback: boolean,
): { mode: WatchMode; unseen: string[] } {
  if (rollback && requested === 'gates' && sight.blind.length > 0)
    return { mode: 'readiness-only', unseen: [ROLLBACK_BLIND, ...unseenBy(sight, 'readiness-only')] };
  checkWatchSight(sight, requested);
  return { mode: requested, unseen: unseenBy(sight, requested) };
}
