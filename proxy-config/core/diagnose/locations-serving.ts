import { matchLocation } from '../nginx-config/match-location.js';
import type { NginxDirective } from '../nginx-config/types.js';
import type { ConfigEvidence, LocationFacts } from './evidence.js';

/**
 * The locations nginx picks for `paths` (its own selection: exact, longest prefix, `^~`, regexes in
 * order, nested locations), in every server block, since a log line does not say which server took
 * it; every location when no path is known or none matches.
 */
export function locationsServing(paths: readonly string[], config: ConfigEvidence | null): LocationFacts[] {
  if (!config) return [];
  const picked = new Set<NginxDirective>();
  for (const path of paths)
    for (const server of config.servers) {
      const found = matchLocation(server, path);
      if (found) picked.add(found.block);
    }
  const matched = config.locations.filter((location) => picked.has(location.block));
  return matched.length > 0 ? matched : [...config.locations];
}
