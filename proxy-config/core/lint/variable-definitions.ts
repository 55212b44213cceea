import { walkDirectives } from '../nginx-config/query.js';
import { ANNOTATION_PREFIX, type NginxConfig, type NginxDirective } from '../nginx-config/types.js';

/**
 * Directives that define a variable for a whole context, and the argument naming it. `geo $var`
 * reads $remote_addr, `geo $source $var` names its source first: the variable is the last word.
 */
const DEFINERS: Record<string, (args: string[]) => string | undefined> = {
  map: (args) => args[1],
  geo: (args) => args.at(-1),
  split_clients: (args) => args[1],
  perl_set: (args) => args[0],
  js_set: (args) => args[0],
};

/** `$name` or `${name}` as nginx looks it up (lower-cased), or undefined for anything else. */
export function variableName(word: string): string | undefined {
  return /^\$\{?(\w+)\}?$/.exec(word)?.[1]?.toLowerCase();
}

/** The variable a map, geo, split_clients, perl_set or js_set defines; undefined for other directives. */
export function definedVariable(d: NginxDirective): string | undefined {
  const word = DEFINERS[d.name]?.(d.args);
  return word === undefined ? undefined : variableName(word);
}

const DEFINITIONS = new WeakMap<NginxConfig, Map<string, NginxDirective[]>>();

/**
 * Every variable definition by context and name (`http bad_referer`, `stream upstream`), in the
 * order nginx reads them. http and stream variables are separate namespaces.
 */
export function variableDefinitions(config: NginxConfig): Map<string, NginxDirective[]> {
  let found = DEFINITIONS.get(config);
  if (!found) {
    const byName = new Map<string, NginxDirective[]>();
    walkDirectives(config, (d, chain) => {
      const name = definedVariable(d);
      if (name === undefined) return;
      const key = `${chain.some((b) => b.name === 'stream') ? 'stream' : 'http'} ${name}`;
      byName.set(key, [...(byName.get(key) ?? []), d]);
    });
    found = byName;
    DEFINITIONS.set(config, found);
  }
  return found;
}

/**
 * The definition of a variable nginx uses (of http's by default, or of stream's): the last one
 * read. nginx -t accepts a second map or geo of the same variable and each one replaces the handler
 * of the one before (checked on nginx 1.22: a geo after a map answers for the map's variable).
 */
export function definitionInEffect(
  config: NginxConfig,
  name: string,
  namespace: 'http' | 'stream' = 'http',
): NginxDirective | undefined {
  return variableDefinitions(config).get(`${namespace} ${name}`)?.at(-1);
}

/** What a map or geo gives a value no entry matches: its `default`, else the empty string. */
export function defaultValue(d: NginxDirective): string {
  return (d.entries ?? []).find((e) => e.name === 'default')?.args[0] ?? '';
}

/** How `if ($var)` reads a value: false for the empty string and "0", true for anything else. */
export const truthy = (value: string) => value !== '' && value !== '0';

/** A `return` that answers 4xx (444 closes the connection): the client is refused, nothing served. */
function refuses(d: NginxDirective): boolean {
  const code = Number(d.args[0]);
  return d.name === 'return' && code >= 400 && code < 500;
}

/** True for an `if` whose block does nothing but refuse (`return 403;`), whatever its condition. */
export function refusesOnly(block: NginxDirective): boolean {
  const body = (block.children ?? []).filter((d) => !d.name.startsWith(ANNOTATION_PREFIX));
  return block.name === 'if' && body.length > 0 && body.every(refuses);
}

/**
 * The variable of an access gate `if ($var) { return 403; }`: a block that does nothing but refuse,
 * run for the requests where $var is neither "" nor "0". Undefined for any other `if`.
 */
export function gateVariable(block: NginxDirective): string | undefined {
  return block.args.length === 1 && refusesOnly(block) ? variableName(block.args[0] ?? '') : undefined;
}
