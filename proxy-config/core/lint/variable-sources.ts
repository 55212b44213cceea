import { ifCondition } from '../nginx-config/if-condition.js';
import type { ParsedRegex } from '../nginx-config/pcre/parse-pcre.js';
import { anchoredAtEnd, anchoredAtStart, canHold, modelPcre } from '../nginx-config/pcre/pcre-analysis.js';
import { childrenNamed, locationMatch, type ScopeChain } from '../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';
import { describeBlock } from './proxied-locations.js';
import { definitionInEffect } from './variable-definitions.js';

/** One place a variable's value can come from, with what the rules need to know about it. */
export interface VariableSource {
  /** For messages: `$http_x_forwarded_host`, `$1 of location ~ ^/p/(.*)$`. */
  what: string;
  /** The nginx built-in it comes from (`uri`, `http_x_forwarded_host`), or `capture`. */
  origin: string;
  /** The client chooses it (path, query, headers, cookies), unchecked by an anchored map regex. */
  client: boolean;
  /** It may hold this character. */
  mayHold(ch: string): boolean;
}

/** Where a value is evaluated: the directive and the blocks around it (innermost last). */
export interface ValueSite {
  directive: NginxDirective;
  chain: ScopeChain;
}

const ANYTHING = () => true;
const ONE_LINE = (ch: string) => ch !== '\r' && ch !== '\n';
/** nginx percent-decodes the path: %0d%0a becomes a real line break (only %00 is refused). */
const DECODED = (ch: string) => ch !== '\0';

/** Built-in variables the client controls, by exact name. The rest of nginx's are the server's own. */
const CLIENT_VARIABLES: Record<string, (ch: string) => boolean> = {
  uri: DECODED,
  document_uri: DECODED,
  fastcgi_script_name: DECODED,
  fastcgi_path_info: DECODED,
  request_filename: DECODED,
  request_body: ANYTHING,
  request_uri: ONE_LINE,
  args: ONE_LINE,
  query_string: ONE_LINE,
  request: ONE_LINE,
  host: ONE_LINE,
  remote_user: ONE_LINE,
  content_type: ONE_LINE,
};

/** Families of client-controlled variables: request headers, query arguments, cookies. */
const CLIENT_PREFIXES = ['http_', 'arg_', 'cookie_'];

function builtin(name: string): VariableSource | undefined {
  const exact = CLIENT_VARIABLES[name];
  if (exact) return { what: `$${name}`, origin: name, client: true, mayHold: exact };
  if (CLIENT_PREFIXES.some((prefix) => name.startsWith(prefix) && name.length > prefix.length))
    return { what: `$${name}`, origin: name, client: true, mayHold: ONE_LINE };
  return undefined;
}

/** The variables a value uses, in order (`$x`, `${x}`, `$1`), lower-cased as nginx looks them up. */
export function variablesIn(value: string): string[] {
  return [...value.matchAll(/\$(?:\{(\w+)\}|(\w+))/g)].map((m) => (m[1] ?? m[2] ?? '').toLowerCase());
}

/** The regex whose captures ($1, $name) are current, and what it was matched against. */
export interface CaptureContext {
  pattern: ParsedRegex;
  subject: VariableSource[];
  where: string;
}

const DECODED_PATH: VariableSource = { what: '$uri', origin: 'uri', client: true, mayHold: DECODED };

const MAX_DEPTH = 8;

function regexOfLocation(location: NginxDirective): CaptureContext | undefined {
  const { modifier, path } = locationMatch(location);
  if (modifier !== '~' && modifier !== '~*') return undefined;
  const pattern = modelPcre(path, modifier === '~*');
  return pattern && { pattern, subject: [DECODED_PATH], where: describeBlock(location) };
}

/** The regex of an `if ($var ~ regex)` that matched (a `!~` one sets no captures). */
function regexOfIf(block: NginxDirective, site: ValueSite, config: NginxConfig, depth: number) {
  const condition = ifCondition(block);
  if (!condition?.regex || condition.negated) return undefined;
  const pattern = modelPcre(condition.regex, condition.caseless);
  if (!pattern) return undefined;
  const subject = sourcesIn(condition.variable, site, config, undefined, depth + 1);
  return { pattern, subject, where: `if (${condition.variable} ${condition.operator} ${condition.regex})` };
}

/** The innermost regex around a site: an enclosing `if`, else a regex location. */
function capturesAround(site: ValueSite, config: NginxConfig, depth: number): CaptureContext | undefined {
  for (let i = site.chain.length - 1; i >= 0; i--) {
    const block = site.chain[i] as NginxDirective;
    if (block.name === 'if') {
      const found = regexOfIf(block, { directive: block, chain: site.chain.slice(0, i) }, config, depth);
      if (found) return found;
    }
    if (block.name === 'location') return regexOfLocation(block);
  }
  return undefined;
}

/** A capture group as a source: what the group can hold of what its subject can hold. */
function captureSource(context: CaptureContext, name: string): VariableSource[] {
  const group = /^\d+$/.test(name)
    ? context.pattern.captures.get(Number(name))
    : context.pattern.named.get(name);
  if (!group) return [];
  return [
    {
      what: `$${name} of ${context.where}`,
      origin: 'capture',
      client: context.subject.some((s) => s.client),
      mayHold: (ch) => canHold(group, ch) && context.subject.some((s) => s.mayHold(ch)),
    },
  ];
}

/** A block's `set` directives by variable, with those of its `if` blocks: indexed once per block. */
const SETS = new WeakMap<
  NginxDirective,
  Map<string, Array<{ set: NginxDirective; inIf?: NginxDirective }>>
>();

function setsIn(block: NginxDirective): Map<string, Array<{ set: NginxDirective; inIf?: NginxDirective }>> {
  let index = SETS.get(block);
  if (!index) {
    const found = new Map<string, Array<{ set: NginxDirective; inIf?: NginxDirective }>>();
    const add = (set: NginxDirective, inIf?: NginxDirective) => {
      const name = (set.args[0] ?? '').toLowerCase();
      found.set(name, [...(found.get(name) ?? []), { set, inIf }]);
    };
    for (const child of block.children ?? []) {
      if (child.name === 'set') add(child);
      if (child.name === 'if') for (const inner of childrenNamed(child, 'set')) add(inner, child);
    }
    index = found;
    SETS.set(block, index);
  }
  return index;
}

/** `set $name value` in the blocks around a site (and in their `if` blocks), each with its own site. */
export function setsOf(name: string, site: ValueSite): ValueSite[] {
  return site.chain.flatMap((block, i) => {
    const chain = site.chain.slice(0, i + 1);
    return (setsIn(block).get(`$${name}`) ?? []).map(({ set, inIf }) => ({
      directive: set,
      chain: inIf ? [...chain, inIf] : chain,
    }));
  });
}

/** Map keys that are instructions, not values. */
const MAP_KEYWORDS = new Set(['hostnames', 'volatile', 'include']);

/**
 * The values a `map` can give `$name`. A regex entry returning its own source (`~^[a-z/]*$ $uri;`)
 * passes only what the regex matched; when the regex is anchored at both ends that is the regex's
 * characters, which is how a map guards a client value.
 */
function mapSources(name: string, site: ValueSite, config: NginxConfig, depth: number): VariableSource[] {
  // The definition nginx uses, in the site's namespace: a later map (or geo) of the same variable
  // replaces an earlier one, whose values then never reach the site.
  const namespace = site.chain.some((block) => block.name === 'stream') ? 'stream' : 'http';
  const definition = definitionInEffect(config, name.toLowerCase(), namespace);
  return (definition?.name === 'map' ? [definition] : []).flatMap((block) => {
    const source = (block.args[0] ?? '').replace(/^\$\{?(\w+)\}?$/, '$1').toLowerCase();
    const sourceValues = sourcesIn(block.args[0] ?? '', site, config, undefined, depth + 1);
    return (block.entries ?? []).flatMap((entry) => {
      const value = entry.args[0];
      if (value === undefined || MAP_KEYWORDS.has(entry.name)) return [];
      const regex = entry.name.startsWith('~')
        ? modelPcre(entry.name.replace(/^~\*?/, ''), entry.name.startsWith('~*'))
        : undefined;
      const context = regex && {
        pattern: regex,
        subject: sourceValues,
        where: `map ${block.args[0] ?? ''} "${entry.name}"`,
      };
      return variablesIn(value).flatMap((variable) => {
        if (variable !== source) return sourcesIn(`$${variable}`, site, config, context, depth + 1);
        // The map's own source: an exact key means the value is that key, a literal.
        if (entry.name !== 'default' && !regex) return [];
        if (!regex) return sourceValues;
        const whole = regex.root;
        const guarded = anchoredAtStart(regex) && anchoredAtEnd(regex);
        // Checked against a whole-value regex, the value is one the config's author allowed.
        return sourceValues.map((s) => ({
          ...s,
          what: `${s.what} through map "${entry.name}"`,
          client: s.client && !guarded,
          mayHold: (ch: string) => s.mayHold(ch) && (!guarded || canHold(whole, ch)),
        }));
      });
    });
  });
}

/**
 * Every source the variables of `value` can draw from at `site`: built-ins the client controls,
 * regex captures, and what `set` and `map` put into user variables, followed through. Variables it
 * cannot follow (other modules', `geo`, unknown ones) yield nothing: the rules stay silent on them.
 */
export function sourcesIn(
  value: string,
  site: ValueSite,
  config: NginxConfig,
  captures?: CaptureContext,
  depth = 0,
): VariableSource[] {
  if (depth > MAX_DEPTH) return [];
  return variablesIn(value).flatMap((name) => {
    if (/^\d+$/.test(name)) {
      const context = captures ?? capturesAround(site, config, depth);
      return context ? captureSource(context, name) : [];
    }
    const own = builtin(name);
    if (own) return [own];
    const named = captures ?? capturesAround(site, config, depth);
    if (named?.pattern.named.has(name)) return captureSource(named, name);
    const sets = setsOf(name, site).flatMap((set) =>
      sourcesIn(set.directive.args[1] ?? '', set, config, undefined, depth + 1),
    );
    return [...sets, ...mapSources(name, site, config, depth)];
  });
}

/** The captures a `rewrite` replacement refers to: its own regex, matched against the decoded path. */
export function rewriteCaptures(rewrite: NginxDirective): CaptureContext | undefined {
  const pattern = modelPcre(rewrite.args[0] ?? '');
  return pattern && { pattern, subject: [DECODED_PATH], where: `rewrite ${rewrite.args[0] ?? ''}` };
}
