import type { LocationFacts } from './evidence.js';

/**
 * The location nginx would pick for a path among prefix and exact locations (longest prefix wins,
 * `=` wins outright); regex locations are not evaluated, so a path only they serve gives null.
 */
export function matchLocation(path: string, locations: readonly LocationFacts[]): LocationFacts | null {
  let best: LocationFacts | null = null;
  for (const location of locations) {
    if (location.path.startsWith('~')) continue;
    if (location.exact) {
      if (location.path === path) return location;
      continue;
    }
    if (path.startsWith(location.path) && location.path.length > (best?.path.length ?? -1)) best = location;
  }
  return best;
}

/** The locations serving any of `paths`; every location when no path is known or none matches. */
export function locationsServing(
  paths: readonly string[],
  locations: readonly LocationFacts[],
): LocationFacts[] {
  const matched = new Set(
    paths.map((path) => matchLocation(path, locations)).filter((l): l is LocationFacts => l !== null),
  );
  return matched.size > 0 ? locations.filter((location) => matched.has(location)) : [...locations];
}
