import type { NginxScope } from './check-directives.js';
import {
  DIRECTIVES_ELSEWHERE,
  NGINX_OWN_MODULES,
  type DirectiveList,
  type DirectiveScope,
} from './directives-elsewhere.js';

const words = (text: string | undefined): string[] => (text ?? '').split(/\s+/).filter(Boolean);

/** Where a name is a directive outside nginx 1.22: the list and the kind of block. */
export interface DefinedElsewhere {
  list: DirectiveList;
  scope: DirectiveScope;
}

const ELSEWHERE: ReadonlyMap<string, readonly DefinedElsewhere[]> = (() => {
  const found = new Map<string, DefinedElsewhere[]>();
  for (const list of DIRECTIVES_ELSEWHERE)
    for (const [scope, names] of Object.entries(list.names) as [DirectiveScope, string][])
      for (const name of words(names)) found.set(name, [...(found.get(name) ?? []), { list, scope }]);
  return found;
})();

/** Every place outside nginx 1.22 that defines a directive of this name, in any kind of block. */
export function definedElsewhere(name: string): readonly DefinedElsewhere[] {
  return ELSEWHERE.get(name) ?? [];
}

/** True when a later nginx, NGINX Plus or a known module takes this name in a block of this scope. */
export function isDirectiveElsewhere(name: string, scope: NginxScope): boolean {
  return definedElsewhere(name).some((d) => d.scope === scope || d.scope === 'any');
}

/** The module whose rewrite-phase statement `name` is (set-misc's set_random), if any. */
export function rewritePhaseFamily(name: string): string | undefined {
  return definedElsewhere(name).find(({ list }) => words(list.rewritePhase).includes(name))?.list.family;
}

/** Every name of every list, for telling what a misspelt module directive may have meant. */
export function namesElsewhere(): IterableIterator<string> {
  return ELSEWHERE.keys();
}

// The first list naming a module wins: http-flv bundles RTMP's modules, which are RTMP's.
const MODULE_FAMILY: ReadonlyMap<string, string> = new Map(
  [
    ...words(NGINX_OWN_MODULES).map((module): [string, string] => [module, 'nginx']),
    ...DIRECTIVES_ELSEWHERE.flatMap((list) =>
      words(list.modules).map((module): [string, string] => [module, list.family]),
    ),
  ].reverse(),
);

/**
 * Which family of directives a `load_module` file brings in, by its name (`modules/ngx_http_lua_module.so`
 * is OpenResty's lua-nginx-module): `nginx` for one of nginx's own modules, undefined for a module
 * lint has no list of.
 */
export function familyOfModuleFile(path: string): string | undefined {
  const base = path.split('/').pop() ?? '';
  return MODULE_FAMILY.get(base.replace(/\.so$/, ''));
}

/** Optimal string alignment distance (Levenshtein plus swapping two neighbours), stopping past `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (before[j - 2] as number) + 1);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length] as number;
}

/** True when every word of `part` appears in `whole` in the same order. */
function inOrder(part: readonly string[], whole: readonly string[]): boolean {
  let at = 0;
  for (const word of whole) if (word === part[at]) at++;
  return at === part.length;
}

/**
 * The names a misspelt directive name most likely meant, best first (at most three): the same
 * name but for case or `-` for `_`; one edit away (a letter added, dropped, changed, or two
 * swapped), two for a name of 12 letters or more; or, for a name of two words or more, a name
 * with the same first word holding all its words in order (`ssl_key`: ssl_certificate_key) or the
 * same words in another order; or a name and its usual argument joined by `_` (`deny_all`: `deny all`,
 * `gzip_on`). Names of three letters or fewer are matched only the first way, and a match the
 * first way is given alone.
 */
export function nearNames(name: string, candidates: Iterable<string>): string[] {
  const plain = name.toLowerCase().replace(/-/g, '_');
  const own = plain.split('_').filter(Boolean);
  const limit = plain.length < 4 ? 0 : plain.length < 12 ? 1 : 2;
  const glued = /^(.+)_(on|off|all|none)$/.exec(plain);
  const found: { name: string; rank: number }[] = [];
  for (const candidate of candidates) {
    if (candidate === name) continue;
    if (candidate === plain) {
      found.push({ name: candidate, rank: 0 });
      continue;
    }
    if (glued?.[1] === candidate) {
      found.push({ name: `${candidate} ${glued[2]}`, rank: 1 });
      continue;
    }
    const distance = limit === 0 ? 1 : editDistance(plain, candidate, limit);
    if (distance <= limit) {
      found.push({ name: candidate, rank: distance });
      continue;
    }
    if (own.length < 2) continue;
    const theirs = candidate.split('_');
    if (theirs[0] !== own[0]) continue;
    const sameWords =
      theirs.length === own.length && [...theirs].sort().join('_') === [...own].sort().join('_');
    if (sameWords) found.push({ name: candidate, rank: 3 });
    else if (theirs.length > own.length && inOrder(own, theirs))
      found.push({ name: candidate, rank: 3 + theirs.length - own.length });
  }
  // The same name written in capitals or with dashes leaves no doubt.
  const exact = found.filter((f) => f.rank === 0);
  return (exact.length > 0 ? exact : found)
    .sort((a, b) => a.rank - b.rank || a.name.length - b.name.length || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map((f) => f.name);
}
