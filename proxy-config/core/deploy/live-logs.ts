import { logFormatNamed, toAccessLogWriter } from '../nginx-config/configured-logs.js';
import { parseProxyPassTarget } from '../nginx-config/proxy-pass-target.js';
import { effectiveDirectives, listLocations, proxyPassOf, walkDirectives } from '../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';
import type { LiveLogs, LogWriter } from './watch-sight.js';

/** The running master as the deploy found it. */
export interface RunningMaster {
  pid: number;
  configFile: string;
  prefix: string;
}

const at = (directive: NginxDirective) => `${directive.file}:${directive.line}`;
const locationName = (location: NginxDirective) => `location ${location.args.join(' ')} at ${at(location)}`;

/**
 * What the running nginx writes of the upstream's requests to the watched file. `files` are the
 * paths as the config spells them that are that file (a link and its target both count).
 *
 * Only the paths that serve the upstream count: each location whose proxy_pass names it, with the
 * access_log lines in effect there (nginx's inheritance: the innermost level with any access_log
 * lines replaces every outer one; `off` there logs nothing). A server that never proxies to the
 * upstream (a stub_status page) may write the file in any format: none of its lines is the new
 * instance's. A location writing elsewhere, or nothing, is `silent`: its requests are not seen.
 */
export function liveLogsOf(
  config: NginxConfig,
  master: RunningMaster,
  upstream: string,
  files: ReadonlySet<string>,
): LiveLogs {
  const writers = new Map<NginxDirective, LogWriter>();
  const silent: string[] = [];
  const allFiles = new Set<string>();
  let serving = 0;
  const add = (directive: NginxDirective) => {
    const writer = toAccessLogWriter(directive, master.prefix);
    if (!writer) return false;
    allFiles.add(writer.path);
    if (!files.has(writer.path)) return false;
    const name = writer.formatName ?? 'combined';
    writers.set(directive, {
      formatName: name,
      format: formatNamed(config, name),
      where: writer.where,
      buffered: writer.buffered,
      flushMs: writer.flushMs,
      gzip: writer.gzip,
      ...(writer.condition === undefined ? {} : { condition: writer.condition }),
    });
    return true;
  };
  for (const { block, chain } of locationsServing(config, upstream)) {
    serving += 1;
    const inEffect = effectiveDirectives(chain, 'access_log');
    const off = inEffect.find((d) => d.args[0] === 'off');
    if (inEffect.length === 0 || off) {
      silent.push(
        `${locationName(block)} (${off ? `access_log off at ${at(off)}` : 'no access_log in effect'})`,
      );
      continue;
    }
    const written = inEffect.map(add).some(Boolean);
    if (!written)
      silent.push(
        `${locationName(block)} (its access_log in effect writes ${inEffect.map((d) => d.args[0]).join(', ')})`,
      );
  }
  const running = { pid: master.pid, configFile: master.configFile };
  if (serving > 0) return { ...running, writers: [...writers.values()], files: [...allFiles], silent };
  // No location names the upstream (the live-vs-plan check refuses that): every line writing the file is judged.
  walkDirectives(config, (directive) => {
    if (directive.name === 'access_log') add(directive);
  });
  return {
    ...running,
    writers: [...writers.values()],
    files: [...allFiles],
    silent: [],
  };
}

/** The locations whose proxy_pass names upstream `upstream` (by name, without a port or variables). */
function locationsServing(config: NginxConfig, upstream: string) {
  return listLocations(config).filter(({ block }) => {
    const pass = proxyPassOf(block);
    const target = pass && parseProxyPassTarget(pass.args[0] ?? '');
    return target && !target.hasPort && !target.hasVariables && target.host === upstream;
  });
}

/**
 * The access log files in effect where upstream `upstream` is served (nginx's inheritance, as
 * above), in the order nginx lists those locations, each once: what a deploy behind a hand-written
 * config watches, since no spec names its log.
 */
export function servedAccessLogFiles(config: NginxConfig, prefix: string, upstream: string): string[] {
  const files = new Set<string>();
  for (const { chain } of locationsServing(config, upstream))
    for (const directive of effectiveDirectives(chain, 'access_log')) {
      const writer = toAccessLogWriter(directive, prefix);
      if (writer) files.add(writer.path);
    }
  return [...files];
}

/** The log_format of that name; null when absent or unreadable (nginx would not have started with it). */
function formatNamed(config: NginxConfig, name: string) {
  try {
    return logFormatNamed(config, name);
  } catch {
    return null;
  }
}
