import { isMainConfig, walkDirectives } from '../../nginx-config/query.js';
import { accessLogsInEffect, logFormatsOf, serverOf } from '../access-logs.js';
import { listProxiedLocations } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';

/** The §4.8 upstream fields; with them a log line tells a proxy-generated 502/504 from the app's own. */
const UPSTREAM_FIELDS = [
  'upstream_status',
  'upstream_addr',
  'upstream_response_time',
  'upstream_connect_time',
  'upstream_header_time',
];

/** §4.8: the access log of proxied requests holds the upstream fields. */
export const ACCESS_LOG_UPSTREAM_FIELDS: LintRule = {
  id: 'access-log-upstream-fields',
  severity: 'note',
  title: 'access log lacks upstream fields',
  message:
    'Without $upstream_status, $upstream_addr and the upstream times a log line cannot tell a 502/504 the proxy produced from one the application returned, nor which backend served it or how slow it was.',
  fix: 'log_format with $upstream_status $upstream_addr $upstream_response_time $upstream_connect_time $upstream_header_time (see templates/), used by every access_log of proxied traffic',
  runbook: RUNBOOKS.proxyOrUpstream,
  test: (config) => {
    const hits = new Map<string, RuleHit>();
    const formats = logFormatsOf(config);
    const main = isMainConfig(config);
    for (const { block, chain } of listProxiedLocations(config)) {
      for (const log of accessLogsInEffect(chain, formats, main ? (serverOf(chain) ?? block) : undefined)) {
        if (log.format === undefined) continue;
        const missing = UPSTREAM_FIELDS.filter(
          (field) => !new RegExp(`\\$\\{?${field}\\b`).test(log.format ?? ''),
        );
        if (missing.length === 0) continue;
        const source = log.directive
          ? `access log format "${log.formatName}"`
          : 'the default access log (combined)';
        hits.set(`${log.file}:${log.line}`, {
          file: log.file,
          line: log.line,
          what: `${source} of proxied requests lacks ${missing.map((f) => `$${f}`).join(', ')}`,
        });
      }
    }
    return [...hits.values()];
  },
};

/** §4.8: a buffered access log is flushed periodically, not only when the buffer fills. */
export const ACCESS_LOG_BUFFER_NO_FLUSH: LintRule = {
  id: 'access-log-buffer-no-flush',
  severity: 'warning',
  title: 'buffered access log without flush',
  message:
    'A buffered access log without flush= writes only when the buffer fills: at low traffic records show up minutes late (tail and log watchers see nothing) and are lost when nginx dies.',
  fix: 'access_log PATH FORMAT buffer=64k flush=5s;',
  runbook: RUNBOOKS.logBuffer,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (directive) => {
      if (directive.name !== 'access_log') return;
      const params = directive.args.slice(2);
      const buffered = params.some((p) => p.startsWith('buffer=') || p === 'gzip' || p.startsWith('gzip='));
      if (buffered && !params.some((p) => p.startsWith('flush=')))
        hits.push({
          file: directive.file,
          line: directive.line,
          what: `access_log ${directive.args[0] ?? ''} is buffered (${params.join(' ')}) without flush=`,
        });
    });
    return hits;
  },
};
