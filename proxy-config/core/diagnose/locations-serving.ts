import { matchLocation } from '../nginx-config/match-location.js';
import type { NginxDirective } from '../nginx-config/types.js';
import type { ConfigEvidence, LocationFacts } from './evidence.js';
import type { SymptomRequest } from './symptom-requests.js';

/**
 * The locations nginx picks for `requests` (its own selection: exact, longest prefix, `^~`, regexes
 * in order, nested locations), in each server that can have answered the request (every server
 * when nothing says which); every location when no path is known or none matches.
 */
export function locationsServing(
  requests: readonly SymptomRequest[],
  config: ConfigEvidence | null,
): LocationFacts[] {
  if (!config) return [];
  const picked = new Set<NginxDirective>();
  for (const { path, servers } of requests)
    for (const server of config.servers) {
      if (servers && !servers.includes(server.block)) continue;
      const found = matchLocation(server, path);
      if (found) picked.add(found.block);
    }
  const matched = config.locations.filter((location) => picked.has(location.block));
  return matched.length > 0 ? matched : [...config.locations];
}

/**
 * The line that heads a list of settings in locations of several servers: the logs did not tie
 * each request to one server, so each candidate is named rather than one chosen. Empty for one server.
 */
export function candidatesNote(locations: readonly LocationFacts[], setting: string): string[] {
  const servers = new Set(locations.map((location) => location.server));
  return servers.size > 1
    ? [
        `config: the requests went to (or, where the logs do not say, may have gone to) locations in ${servers.size} servers; ${setting} in effect in each:`,
      ]
    : [];
}
