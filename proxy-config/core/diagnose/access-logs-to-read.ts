import { isProxyopsError } from '../errors.js';
import { createLogReaderKit } from '../logs/log-format-presets.js';
import { configuredLogs, logFormatNamed, type ConfiguredLog } from '../nginx-config/configured-logs.js';
import { walkDirectives } from '../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';

/** An access log left unread because another one writes the same requests. */
export interface SameRequestsLog {
  log: ConfiguredLog;
  readInstead: ConfiguredLog;
}

/** How much the format of `log` tells diagnosis: who made a status first, then upstreams, then timings. */
function weight(config: NginxConfig, log: ConfiguredLog): number {
  try {
    const spec = logFormatNamed(config, log.formatName ?? 'combined');
    if (!spec) return -1;
    const caps = createLogReaderKit(spec).capabilities;
    return (
      (caps.headerTime ? 8 : 0) + (caps.upstream ? 4 : 0) + (caps.requestTime ? 2 : 0) + (caps.time ? 1 : 0)
    );
  } catch (error) {
    // A log_format that cannot be counted (no $status, a bad escape=): any other log of the block is better.
    if (isProxyopsError(error)) return -1;
    throw error;
  }
}

/**
 * The access logs of a config that diagnosis reads. Several `access_log` lines in one block write
 * every request of that block once each (a common set-up: one `combined`, one timed): reading them all
 * would count each request once per line, so only the one whose format tells the most is read.
 */
export function accessLogsToRead(
  config: NginxConfig,
  prefix: string,
): { read: ConfiguredLog[]; sameRequests: SameRequestsLog[] } {
  const access = configuredLogs(config, prefix).filter((log) => log.kind === 'access');
  const byWhere = new Map(access.map((log) => [log.where, log]));
  const blocks = new Map<NginxDirective, ConfiguredLog[]>();
  walkDirectives(config, (directive, chain) => {
    const log =
      directive.name === 'access_log' ? byWhere.get(`${directive.file}:${directive.line}`) : undefined;
    // `if=` logs only some requests: such a line writes other requests than its neighbours.
    if (!log || directive.args.some((arg) => arg.startsWith('if='))) return;
    const block = chain.at(-1)!;
    blocks.set(block, [...(blocks.get(block) ?? []), log]);
  });
  const sameRequests: SameRequestsLog[] = [];
  for (const logs of blocks.values()) {
    if (logs.length < 2) continue;
    const weighed = logs.map((log) => ({ log, weight: weight(config, log) }));
    // The first written wins a tie, as nginx writes them in that order.
    const best = weighed.reduce((a, b) => (b.weight > a.weight ? b : a));
    for (const { log } of weighed) if (log !== best.log) sameRequests.push({ log, readInstead: best.log });
  }
  const skipped = new Set(sameRequests.map((entry) => entry.log));
  return { read: access.filter((log) => !skipped.has(log)), sameRequests };
}
