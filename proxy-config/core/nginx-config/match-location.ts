import { locationMatch, type BlockScope } from './query.js';
import type { NginxDirective } from './types.js';

interface Lookup {
  found: BlockScope | undefined;
  /** nginx's NGX_OK: an exact or regex match that ends the search. */
  final: boolean;
}

/**
 * The location nginx picks for a request path inside a server block, following
 * ngx_http_core_find_location: an exact `=` match wins; else the longest prefix, whose nested
 * locations are searched next; then (unless that prefix is `^~`) the first matching regex in file
 * order; else the longest prefix. Undefined when no location matches.
 */
export function matchLocation(server: BlockScope, uri: string): BlockScope | undefined {
  return find(server, uri).found;
}

function find(scope: BlockScope, uri: string): Lookup {
  const locations = (scope.block.children ?? []).filter((d) => d.name === 'location' && d.children);
  const within = (block: NginxDirective): BlockScope => ({ block, chain: [...scope.chain, block] });

  const exact = locations.find((b) => locationMatch(b).modifier === '=' && locationMatch(b).path === uri);
  if (exact) return { found: within(exact), final: true };

  let prefix: NginxDirective | undefined;
  for (const block of locations) {
    const { modifier, path } = locationMatch(block);
    if ((modifier === '' || modifier === '^~') && uri.startsWith(path))
      if (!prefix || path.length > locationMatch(prefix).path.length) prefix = block;
  }
  let result: Lookup = { found: undefined, final: false };
  if (prefix) {
    const nested = find(within(prefix), uri);
    if (nested.final) return nested;
    result = { found: nested.found ?? within(prefix), final: false };
    if (locationMatch(prefix).modifier === '^~') return result;
  }
  for (const block of locations) {
    const { modifier, path } = locationMatch(block);
    if (modifier !== '~' && modifier !== '~*') continue;
    if (!toRegExp(path, modifier === '~*')?.test(uri)) continue;
    return { found: find(within(block), uri).found ?? within(block), final: true };
  }
  return result;
}

/** nginx regexes are PCRE; `(?P<x>...)` named groups are the common syntax JS spells differently. */
function toRegExp(source: string, caseless: boolean): RegExp | undefined {
  try {
    return new RegExp(source.replace(/\(\?P</g, '(?<'), caseless ? 'i' : '');
  } catch {
    return undefined;
  }
}
