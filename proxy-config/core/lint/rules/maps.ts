import { walkDirectives } from '../../nginx-config/query.js';
import { ANNOTATION_PREFIX, type NginxConfig, type NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';
import { definedVariable, variableDefinitions, variableName } from '../variable-definitions.js';

/** Entries of a map or geo body that are settings, not key → value pairs. */
const SETTINGS = new Set([
  'default',
  'hostnames',
  'volatile',
  'include',
  'ranges',
  'delete',
  'proxy',
  'proxy_recursive',
]);

/** Variables set by the response: nginx's own headers and trailers, and the upstream's. */
const RESPONSE_VARIABLE = /^\$(?:sent_http_|sent_trailer_|upstream_http_|upstream_trailer_)/;

/** The most values a set_random range may span for its map keys to be checked one by one. */
const RANGE_LIMIT = 1000;

/**
 * The values a variable can take when every statement setting it is set-misc's `set_random $v
 * FROM TO` with numbers (a random integer from FROM to TO, both included, in either order); undefined
 * when something else sets it too, or the range is not written in numbers.
 */
function randomRangeValues(config: NginxConfig, variable: string): Set<string> | undefined {
  const name = variableName(variable);
  if (name === undefined) return undefined;
  const values = new Set<string>();
  let other = false;
  walkDirectives(config, (d) => {
    const sets =
      definedVariable(d) === name || (/^set(?:_|$)/.test(d.name) && variableName(d.args[0] ?? '') === name);
    if (!sets) return;
    const [from, to] = d.args.slice(1).map((a) => (/^-?\d+$/.test(a) ? Number(a) : NaN));
    if (d.name !== 'set_random' || !Number.isSafeInteger(from) || !Number.isSafeInteger(to)) {
      other = true;
      return;
    }
    const [low, high] = [Math.min(from!, to!), Math.max(from!, to!)];
    if (high - low >= RANGE_LIMIT) other = true;
    else for (let v = low; v <= high; v += 1) values.add(String(v));
  });
  return other || values.size === 0 ? undefined : values;
}

/** gixy's hash_without_default. */
export const MAP_WITHOUT_DEFAULT: LintRule = {
  id: 'map-without-default',
  severity: 'warning',
  title: 'map or geo without a default',
  message:
    'A value no entry matches gets an empty string. When the variable gates something — an allow list, a rate-limit key, a backend choice, a header — every unlisted client silently falls through: no limit, no check, or a proxy_pass to nowhere.',
  fix: 'write the default you mean explicitly: default 0; (or default ""; when empty is intended)',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if ((d.name !== 'map' && d.name !== 'geo') || !d.entries) return;
      const names = d.entries.map((e) => e.name).filter((n) => !n.startsWith(ANNOTATION_PREFIX));
      if (names.includes('default') || names.includes('include')) return;
      // One pair and no default is the idiom for "set only in this case" (limit_req keys).
      const pairs = names.filter((n) => !SETTINGS.has(n)).length;
      if (d.name === 'map' && pairs <= 1) return;
      // A map of a response header is only known once the response is made: it cannot gate access,
      // a rate-limit key or a proxy_pass, only response headers, where "" means the header is not sent.
      if (d.name === 'map' && RESPONSE_VARIABLE.test(d.args[0] ?? '')) return;
      // Entries for every value the source can take (`set_random $r 1 3;` and keys 1, 2, 3) leave none
      // for a default.
      const taken = d.name === 'map' ? randomRangeValues(config, d.args[0] ?? '') : undefined;
      if (taken && [...taken].every((v) => names.includes(v))) return;
      hits.push({
        file: d.file,
        line: d.line,
        directive: d,
        what: `${d.name} ${d.args.join(' ')} has ${pairs} entries and no default: anything else gets ""`,
      });
    });
    return hits;
  },
};

/** A definition as written, to tell the same definition read twice (harmless) from another one. */
const definitionText = (d: NginxDirective) =>
  JSON.stringify([d.name, d.args, (d.entries ?? []).map((e) => [e.name, e.args])]);

/** One variable defined by two maps, geos, split_clients, perl_set or js_set (perusio's blacklist.conf). */
export const VARIABLE_DEFINED_TWICE: LintRule = {
  id: 'variable-defined-twice',
  severity: 'warning',
  title: 'variable defined twice',
  message:
    'nginx -t accepts a second map, geo, split_clients, perl_set or js_set of the same variable, and the last one read replaces the others: an earlier definition never applies, and what it was meant to do (a blocklist, an exemption, a default) silently does not happen. A referer blocklist map followed by a geo of exempt hosts under the same name gives every other client the geo\'s "": the blocklist never refuses anyone.',
  fix: 'one definition per variable: give each its own name and chain them (geo $referer_checked { default 1; 127.0.0.1 0; } and, in the map, ~(?i)(poker|casino) $referer_checked;), or merge the entries into one',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const definitions of variableDefinitions(config).values()) {
      const last = definitions.at(-1) as NginxDirective;
      for (const lost of definitions.slice(0, -1)) {
        if (definitionText(lost) === definitionText(last)) continue;
        hits.push({
          file: lost.file,
          line: lost.line,
          directive: lost,
          what: `${lost.name} ${lost.args.join(' ')} never applies: ${last.name} ${last.args.join(' ')} (${last.file}:${last.line}) defines the variable again, and nginx uses the last definition`,
        });
      }
    }
    return hits;
  },
};
