import { ProxyopsError } from '../errors.js';
import { parseNginxTime } from './units.js';
import { extractLogFormat } from '../logs/extract-log-format.js';
import { LOG_FORMAT_PRESETS, type LogFormatSpec } from '../logs/log-format-presets.js';
import { walkDirectives } from './query.js';
import type { NginxConfig, NginxDirective } from './types.js';

/** An `access_log` or `error_log` a config writes to a file. */
export interface ConfiguredLog {
  kind: 'access' | 'error';
  /** Absolute: relative paths resolve against the prefix, as nginx does. */
  path: string;
  /** The log_format name of an access log (nginx's default is `combined`). */
  formatName: string | null;
  where: string;
}

const joinPath = (prefix: string, path: string) =>
  path.startsWith('/') ? path : `${prefix.replace(/\/+$/, '')}/${path}`;

/** Every file log of a config (not `off`, `syslog:` or `stderr`), in the order written, each path once per kind. */
export function configuredLogs(config: NginxConfig, prefix: string): ConfiguredLog[] {
  const found: ConfiguredLog[] = [];
  walkDirectives(config, (directive) => {
    const log = toConfiguredLog(directive, prefix);
    if (!log || found.some((seen) => seen.kind === log.kind && seen.path === log.path)) return;
    found.push(log);
  });
  return found;
}

function toConfiguredLog(directive: NginxDirective, prefix: string): ConfiguredLog | null {
  const kind = directive.name === 'access_log' ? 'access' : directive.name === 'error_log' ? 'error' : null;
  const [target, second] = directive.args;
  if (!kind || !target || target === 'off' || target === 'stderr' || target.includes(':')) return null;
  const formatName = kind === 'access' ? (second && !second.includes('=') ? second : 'combined') : null;
  return { kind, path: joinPath(prefix, target), formatName, where: `${directive.file}:${directive.line}` };
}

/** An `access_log` writing a file, with how nginx buffers it. */
export interface AccessLogWriter extends ConfiguredLog {
  /** `buffer=` or `gzip` given: lines reach the file when the buffer fills or at its flush. */
  buffered: boolean;
  /** `flush=` in ms; null when not given (a buffered log is then written only when its buffer fills). */
  flushMs: number | null;
  gzip: boolean;
  /** `if=CONDITION`: a request is logged only when the condition is neither empty nor "0". */
  condition?: string;
}

/** An `access_log` line as a writer of its file; null for `off`, syslog, stderr and other directives. */
export function toAccessLogWriter(directive: NginxDirective, prefix: string): AccessLogWriter | null {
  const log = toConfiguredLog(directive, prefix);
  if (log?.kind !== 'access') return null;
  const params = directive.args.slice(1);
  const flush = params.find((p) => p.startsWith('flush='));
  const gzip = params.some((p) => p === 'gzip' || p.startsWith('gzip='));
  const condition = params.find((p) => p.startsWith('if='));
  return {
    ...log,
    buffered: gzip || params.some((p) => p.startsWith('buffer=')),
    flushMs: flush === undefined ? null : (parseNginxTime(flush.slice('flush='.length)) ?? null),
    gzip,
    ...(condition === undefined ? {} : { condition: condition.slice('if='.length) }),
  };
}

/**
 * The paths of the access logs among `logs`, refused (BAD_OPTION) when they are in several formats:
 * one run reads its files in one format, so the others would be misread, not merged.
 */
export function accessLogPathsOfOneFormat(logs: readonly ConfiguredLog[]): string[] {
  const access = logs.filter((log) => log.kind === 'access');
  const byFormat = new Map<string, string[]>();
  for (const log of access) {
    const name = log.formatName ?? 'combined';
    byFormat.set(name, [...(byFormat.get(name) ?? []), log.path]);
  }
  if (byFormat.size > 1)
    throw new ProxyopsError(
      'BAD_OPTION',
      `the nginx running there writes access logs in ${byFormat.size} formats (${[...byFormat]
        .map(([name, paths]) => `${name}: ${paths.join(', ')}`)
        .join('; ')}); give the files of one format to read`,
    );
  return access.map((log) => log.path);
}

/**
 * The live log a rotated copy came from: `access.log.2.gz` and `access.log.1` (logrotate), the names
 * `logs rotate` gives (`access.log.20261122-023100`, `….1`, `.gz`) and logrotate's `dateext`
 * (`access.log-20261122`) → `access.log`.
 */
export function liveLogPath(path: string): string {
  return path
    .replace(/\.gz$/, '')
    .replace(/\.\d+$/, '')
    .replace(/(\.\d{8}-\d{6}|-\d{8}(\d{2})?)$/, '');
}

/** The `log_format NAME` of a config as a format spec (`combined` is built into nginx); null when absent. */
export function logFormatNamed(config: NginxConfig, name: string): LogFormatSpec | null {
  let spec: LogFormatSpec | null = null;
  walkDirectives(config, (directive) => {
    if (spec || directive.name !== 'log_format' || directive.args[0] !== name) return;
    spec = extractLogFormat(directive.args, `${directive.file}:${directive.line}`);
  });
  return spec ?? (name === 'combined' ? LOG_FORMAT_PRESETS.combined! : null);
}

/** The access log of `config` writing `file` (or the live log a rotated `file` came from), with its format. */
export function accessLogFor(
  config: NginxConfig,
  prefix: string,
  file: string,
): { log: ConfiguredLog; spec: LogFormatSpec } | null {
  const live = liveLogPath(file);
  for (const log of configuredLogs(config, prefix)) {
    if (log.kind !== 'access' || (log.path !== file && log.path !== live)) continue;
    const spec = logFormatNamed(config, log.formatName ?? 'combined');
    if (spec) return { log, spec };
  }
  return null;
}
