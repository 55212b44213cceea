import { liveLogPath } from '../nginx-config/configured-logs.js';
import { effectiveDirectives, listLocations, listServers, type ScopeChain } from '../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';

function writes(chain: ScopeChain, files: readonly string[], prefix: string | null): boolean {
  return effectiveDirectives(chain, 'access_log').some((directive) => {
    const target = directive.args[0] ?? '';
    // A relative path is nginx's prefix's; without the prefix it names no file we can compare.
    const path = target.startsWith('/') ? target : prefix ? `${prefix.replace(/\/+$/, '')}/${target}` : null;
    return path !== null && files.includes(path);
  });
}

/**
 * The `server` blocks of `config` that write access-log `file` (or the live log a rotated copy came
 * from), at server level or in one of their locations: a record of that file was answered by one of
 * them. Null when no access_log line names the file, so any server may have written it.
 */
export function serversWritingLog(
  config: NginxConfig,
  prefix: string | null,
  file: string,
): NginxDirective[] | null {
  const files = [file, liveLogPath(file)];
  const locations = listLocations(config);
  const servers = listServers(config)
    .filter(
      (server) =>
        writes(server.chain, files, prefix) ||
        locations.some(
          (location) => location.chain.includes(server.block) && writes(location.chain, files, prefix),
        ),
    )
    .map((server) => server.block);
  return servers.length > 0 ? servers : null;
}
