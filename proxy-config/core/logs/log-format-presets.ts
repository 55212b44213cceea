import { ProxyopsError } from '../errors.js';
import {
  PROXYOPS_LOG_FORMAT_JSON,
  PROXYOPS_LOG_FORMAT_JSON_1,
  PROXYOPS_LOG_FORMAT_TEXT,
  PROXYOPS_LOG_FORMAT_TEXT_1,
} from '../render/log-formats.js';
import { compileLogFormat, type CompiledLogFormat } from './compile-log-format.js';
import { JSON_LINES_CAPABILITIES, createJsonLinesReader, jsonLinesCapabilities } from './json-lines.js';
import {
  createFactsReader,
  factsCapabilities,
  type FactsCapabilities,
  type FactsReader,
} from './line-facts.js';
import type { LogEscape } from './parse-log-format.js';

/** How lines are laid out: an nginx log_format, or JSON lines keyed by nginx variable names. Plain data. */
export type LogFormatSpec =
  | { kind: 'format'; name: string; format: string; escape: LogEscape }
  /** `keys`: the keys the lines were seen to hold, when known; they decide what the log can tell. */
  | { kind: 'json-lines'; name: string; keys?: string[] };

/** nginx's predefined `combined` format. */
export const COMBINED_LOG_FORMAT =
  '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"';

/** nginx's `common` (NCSA Common Log Format): `combined` without referer and user agent. */
export const COMMON_LOG_FORMAT =
  '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent';

/** The `main` of nginx's own conf/nginx.conf and of the nginx.org packages: `combined` plus X-Forwarded-For. */
export const MAIN_LOG_FORMAT = `${COMBINED_LOG_FORMAT} "$http_x_forwarded_for"`;

const UPSTREAM_TIMES =
  'rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"';

/**
 * The nginx blog's `upstream_time` ("Using NGINX Logging for Application Performance Monitoring"), as
 * published: its quoted parts join with no space before `rt=`. Its header time tells who answered.
 */
export const UPSTREAM_TIME_LOG_FORMAT = `${COMBINED_LOG_FORMAT}${UPSTREAM_TIMES}`;

/** The blog's `upstream_time` as most copies fix it, with the space before `rt=`. */
export const UPSTREAM_TIME_SPACED_LOG_FORMAT = `${COMBINED_LOG_FORMAT} ${UPSTREAM_TIMES}`;

/** ingress-nginx's default `log-format-upstream` (its `upstreaminfo` log_format). */
export const INGRESS_NGINX_LOG_FORMAT =
  '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" ' +
  '"$http_user_agent" $request_length $request_time [$proxy_upstream_name] ' +
  '[$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length $upstream_response_time ' +
  '$upstream_status $req_id';

/** The named formats `--preset` accepts; also the formats tried, in this order, when none is named. */
export const LOG_FORMAT_PRESETS: Record<string, LogFormatSpec> = {
  combined: { kind: 'format', name: 'combined', format: COMBINED_LOG_FORMAT, escape: 'default' },
  common: { kind: 'format', name: 'common', format: COMMON_LOG_FORMAT, escape: 'default' },
  'ingress-nginx': {
    kind: 'format',
    name: 'ingress-nginx',
    format: INGRESS_NGINX_LOG_FORMAT,
    escape: 'default',
  },
  proxyops: { kind: 'format', name: 'proxyops', format: PROXYOPS_LOG_FORMAT_TEXT, escape: 'default' },
  'proxyops-json': {
    kind: 'format',
    name: 'proxyops-json',
    format: PROXYOPS_LOG_FORMAT_JSON,
    escape: 'json',
  },
  // Logs written before proxyops logged the instance that answered (`ui=`, `upstream_instance`).
  'proxyops-1': { kind: 'format', name: 'proxyops-1', format: PROXYOPS_LOG_FORMAT_TEXT_1, escape: 'default' },
  'proxyops-json-1': {
    kind: 'format',
    name: 'proxyops-json-1',
    format: PROXYOPS_LOG_FORMAT_JSON_1,
    escape: 'json',
  },
  json: { kind: 'json-lines', name: 'json' },
  main: { kind: 'format', name: 'main', format: MAIN_LOG_FORMAT, escape: 'default' },
  'upstream-time': {
    kind: 'format',
    name: 'upstream-time',
    format: UPSTREAM_TIME_LOG_FORMAT,
    escape: 'default',
  },
  'upstream-time-spaced': {
    kind: 'format',
    name: 'upstream-time-spaced',
    format: UPSTREAM_TIME_SPACED_LOG_FORMAT,
    escape: 'default',
  },
};

/** The preset named `name`; BAD_OPTION listing the presets otherwise. */
export function presetFormat(name: string): LogFormatSpec {
  const spec = LOG_FORMAT_PRESETS[name];
  if (!spec)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--preset: unknown preset "${name}" (known: ${Object.keys(LOG_FORMAT_PRESETS).join(', ')})`,
    );
  return spec;
}

/** A format made ready to read lines: what it can tell, and a per-thread reader factory. */
export interface LogReaderKit {
  spec: LogFormatSpec;
  escape: LogEscape;
  capabilities: FactsCapabilities;
  /** The compiled log_format (null for JSON lines), for the WebAssembly scanner. */
  format: CompiledLogFormat | null;
  createReader(): { read: FactsReader; reset(): void };
}

/** Compiles a format spec (throws LOG_FORMAT_INVALID when the format cannot give statistics). */
export function createLogReaderKit(spec: LogFormatSpec): LogReaderKit {
  if (spec.kind === 'json-lines')
    return {
      spec,
      escape: 'json',
      capabilities: spec.keys ? jsonLinesCapabilities(spec.keys) : JSON_LINES_CAPABILITIES,
      format: null,
      createReader: createJsonLinesReader,
    };
  const compiled = compileLogFormat(spec.format, spec.escape);
  if (compiled.slots.status === undefined)
    throw new ProxyopsError(
      'LOG_FORMAT_INVALID',
      `log format "${spec.name}" has no $status, so there is nothing to count`,
    );
  return {
    spec,
    escape: spec.escape,
    capabilities: factsCapabilities(compiled),
    format: compiled,
    createReader: () => createFactsReader(compiled),
  };
}
