import { includeCouldSet } from './stock-files.js';
import type { NginxConfig, NginxDirective } from './types.js';

/**
 * A block and the blocks around it, outermost first, ending with the block itself. The first
 * element is always the synthetic root (the file's top level), so main-level and http-level
 * inheritance (e.g. `error_log`, or a snippet's top level) is looked up like any other level.
 */
export type ScopeChain = NginxDirective[];

/** A block found in the tree together with its scope chain. */
export interface BlockScope {
  block: NginxDirective;
  chain: ScopeChain;
}

/** Name of the synthetic root block standing for a config's top level. */
export const ROOT_BLOCK = '#root';

/** The config's top level as a block, so it can head a scope chain. */
export function rootBlock(config: NginxConfig): NginxDirective {
  return { name: ROOT_BLOCK, args: [], file: config.mainFile, line: 0, children: config.directives };
}

/**
 * Each block body's children grouped by name, built on first use. Rules ask "does this level set
 * X?" of every enclosing level of every location, and a server may hold thousands of locations:
 * scanning its body each time made lint quadratic in the number of locations. Keyed by the body
 * array, so a tree built anew (or a body replaced) is indexed afresh.
 */
const childIndex = new WeakMap<NginxDirective[], Map<string, NginxDirective[]>>();

const NONE: readonly NginxDirective[] = Object.freeze([]);

function indexOf(children: NginxDirective[]): Map<string, NginxDirective[]> {
  let index = childIndex.get(children);
  if (!index) {
    index = new Map();
    for (const child of children) {
      const same = index.get(child.name);
      if (same) same.push(child);
      else index.set(child.name, [child]);
    }
    childIndex.set(children, index);
  }
  return index;
}

/**
 * Direct children of a block with the given name (no descent, no inheritance), in order. The
 * array is shared between calls: read it, do not change it.
 */
export function childrenNamed(block: NginxDirective, name: string): readonly NginxDirective[] {
  if (!block.children) return NONE;
  return indexOf(block.children).get(name) ?? NONE;
}

/** Visits every directive (not map/types entries), passing the blocks around it, outermost first. */
export function walkDirectives(
  config: NginxConfig,
  visit: (directive: NginxDirective, chain: ScopeChain) => void,
): void {
  const descend = (block: NginxDirective, chain: ScopeChain) => {
    for (const child of block.children ?? []) {
      visit(child, chain);
      if (child.children) descend(child, [...chain, child]);
    }
  };
  const root = rootBlock(config);
  descend(root, [root]);
}

/**
 * Every block of the config grouped by name, each with its chain, found in one walk on first use
 * and kept for the same top-level array: each rule asks for the locations (or servers, upstreams)
 * again, and walking the tree once per question made the rules' cost grow with their number.
 */
const blockIndex = new WeakMap<NginxDirective[], Map<string, BlockScope[]>>();

function blocksByName(config: NginxConfig): Map<string, BlockScope[]> {
  let index = blockIndex.get(config.directives);
  if (!index) {
    const found = new Map<string, BlockScope[]>();
    walkDirectives(config, (directive, chain) => {
      if (!directive.children) return;
      const scope = { block: directive, chain: [...chain, directive] };
      const same = found.get(directive.name);
      if (same) same.push(scope);
      else found.set(directive.name, [scope]);
    });
    index = found;
    blockIndex.set(config.directives, index);
  }
  return index;
}

/**
 * Every block with the given name (e.g. `server`, `location`, `upstream`), nested ones included,
 * in the order written. Shared between calls: read it, do not change it.
 */
export function findBlocks(config: NginxConfig, name: string): readonly BlockScope[] {
  return blocksByName(config).get(name) ?? [];
}

/**
 * True when a level of the chain includes a file that was not found: what it would have set
 * (proxy_params' headers, a certificate) is unknown, so rules about something missing stay quiet.
 */
export function includesMissingFile(chain: ScopeChain): boolean {
  return chain.some((level) => childrenNamed(level, 'include').some((d) => d.missing !== undefined));
}

/**
 * True when an include that was not found sits where it could have set the directive `name`
 * (proxy_set_header, proxy_http_version) for the end of the chain: at the innermost level that sets
 * `name` itself, or inside it, and it is not a stock file known to set other things (`mime.types`).
 * A level with lines of its own replaces every outer level's (nginx inherits them all or nothing),
 * so an include missing from an outer level could not change what the chain ends with.
 */
export function missingIncludeCouldSet(chain: ScopeChain, name: string): boolean {
  const from = Math.max(
    0,
    chain.findLastIndex((level) => childrenNamed(level, name).length > 0),
  );
  return chain
    .slice(from)
    .some((level) =>
      childrenNamed(level, 'include').some((d) => d.missing !== undefined && includeCouldSet(d, name)),
    );
}

/** True when every `listen` of the server is a unix socket or a loopback address. */
export function loopbackOnly(server: NginxDirective | undefined): boolean {
  const listens = server ? childrenNamed(server, 'listen') : [];
  return (
    listens.length > 0 && listens.every((l) => /^(unix:|127\.|localhost(:|$)|\[::1\])/.test(l.args[0] ?? ''))
  );
}

/** Every `location` block (nested ones too), each with its chain root → http → server → location. */
export function listLocations(config: NginxConfig): readonly BlockScope[] {
  return httpScoped(config, 'location');
}

/** Every `server` block of the http context (not the `server` lines of upstream groups). */
export function listServers(config: NginxConfig): readonly BlockScope[] {
  return httpScoped(config, 'server');
}

/** True for blocks of the http context (not inside `stream {}` or `mail {}`). */
export function isHttpScope(scope: BlockScope): boolean {
  return !scope.chain.some((block) => block.name === 'stream' || block.name === 'mail');
}

const httpIndex = new WeakMap<readonly BlockScope[], readonly BlockScope[]>();

/** findBlocks narrowed to the http context, kept alongside the list it narrows. */
function httpScoped(config: NginxConfig, name: string): readonly BlockScope[] {
  const all = findBlocks(config, name);
  let kept = httpIndex.get(all);
  if (!kept) {
    kept = all.filter(isHttpScope);
    httpIndex.set(all, kept);
  }
  return kept;
}

/** The http `upstream {}` groups with their chains. */
export function listUpstreamScopes(config: NginxConfig): readonly BlockScope[] {
  return httpScoped(config, 'upstream');
}

const upstreamIndex = new WeakMap<readonly BlockScope[], ReadonlyMap<string, NginxDirective>>();

/** The http `upstream {}` groups by name (asked once per proxied location, so kept too). */
export function listUpstreams(config: NginxConfig): ReadonlyMap<string, NginxDirective> {
  const scopes = listUpstreamScopes(config);
  let byName = upstreamIndex.get(scopes);
  if (!byName) {
    byName = new Map(scopes.map(({ block }) => [block.args[0] ?? '', block]));
    upstreamIndex.set(scopes, byName);
  }
  return byName;
}

/**
 * The directives named `name` in effect at the end of `chain`, with nginx's inheritance: the
 * innermost level that has any of them wins and outer levels are ignored entirely (so one
 * `proxy_set_header` in a location drops every server-level one). Empty when no level sets it.
 */
export function effectiveDirectives(chain: ScopeChain, name: string): readonly NginxDirective[] {
  for (let i = chain.length - 1; i >= 0; i--) {
    const found = childrenNamed(chain[i] as NginxDirective, name);
    if (found.length > 0) return found;
  }
  return NONE;
}

/** The single directive named `name` in effect at the end of `chain` (the first at the winning level). */
export function effectiveDirective(chain: ScopeChain, name: string): NginxDirective | undefined {
  return effectiveDirectives(chain, name)[0];
}

/** The `resolver` in effect: along the chain, or at the top of a snippet read on its own. */
export function resolverInEffect(config: NginxConfig, chain: ScopeChain): NginxDirective | undefined {
  return effectiveDirective(chain, 'resolver') ?? config.directives.find((d) => d.name === 'resolver');
}

/** The first argument of the effective directive `name`, or `fallback` (nginx's default) when unset. */
export function effectiveValue(chain: ScopeChain, name: string, fallback?: string): string | undefined {
  return effectiveDirective(chain, name)?.args[0] ?? fallback;
}

const headerIndex = new WeakMap<readonly NginxDirective[], ReadonlyMap<string, string>>();

/**
 * The headers a location sends upstream: name (lower-cased) → value, after inheritance. Every
 * location inheriting the same level's lines gets the same map (built once for those lines).
 */
export function effectiveProxyHeaders(chain: ScopeChain): ReadonlyMap<string, string> {
  const lines = effectiveDirectives(chain, 'proxy_set_header');
  let headers = headerIndex.get(lines);
  if (!headers) {
    headers = new Map(lines.map((d) => [(d.args[0] ?? '').toLowerCase(), d.args[1] ?? '']));
    headerIndex.set(lines, headers);
  }
  return headers;
}

/**
 * The `proxy_pass` of a location: written in it directly or in its `if` / `limit_except` blocks
 * (`proxy_pass` is never inherited from outer levels).
 */
export function proxyPassOf(location: NginxDirective): NginxDirective | undefined {
  for (const child of location.children ?? []) {
    if (child.name === 'proxy_pass') return child;
    if ((child.name === 'if' || child.name === 'limit_except') && child.children) {
      const inner = childrenNamed(child, 'proxy_pass')[0];
      if (inner) return inner;
    }
  }
  return undefined;
}

/** True when the config is a whole nginx.conf (it has an `events` or `http` block), not a snippet. */
export function isMainConfig(config: NginxConfig): boolean {
  return config.directives.some((d) => (d.name === 'http' || d.name === 'events') && d.children);
}

/** The location's match modifier (`=`, `~`, `~*`, `^~`, or '' for a plain prefix) and its path. */
export function locationMatch(location: NginxDirective): { modifier: string; path: string } {
  const [first = '', second] = location.args;
  if (second !== undefined) return { modifier: first, path: second };
  const glued = /^(=|~\*|~|\^~)(.+)$/.exec(first);
  return glued ? { modifier: glued[1] as string, path: glued[2] as string } : { modifier: '', path: first };
}

/** Directives of the rewrite module: they run in order, with the rewrites written before them. */
const REWRITE_MODULE = new Set(['return', 'rewrite']);

/**
 * The `rewrite ^ $request_uri;` (the raw-path trick) that has replaced $uri by the request's own,
 * still %-encoded path before `d` reads it. nginx copies the variable into the URI as it is, so a
 * request's %0d%0a stays three characters each, and a raw CR or LF cannot be in a request line.
 * The rewrite counts in the server (its rewrites run before any location's) and in the innermost
 * location and the `if`s around `d` (an outer location's rewrites do not run for a nested one);
 * header and proxy directives read $uri after every rewrite, a `return` or `rewrite` only after
 * those written before it. A `redirect` or `permanent` one sends the client away: nothing after it reads
 * the path. Undefined when no such rewrite ran.
 */
export function rawPathRewrite(d: NginxDirective, chain: ScopeChain): NginxDirective | undefined {
  const server = chain.findLastIndex((block) => block.name === 'server');
  const location = chain.findLastIndex((block) => block.name === 'location');
  const from = Math.max(location, server + 1);
  const indexes = [...(server === -1 ? [] : [server]), ...chain.keys()].filter(
    (i, at, all) => all.indexOf(i) === at && (i === server || i >= from),
  );
  for (const i of indexes) {
    const own = (chain[i] as NginxDirective).children ?? [];
    const rewrite = own.findIndex(
      (r) =>
        r.name === 'rewrite' &&
        r.args[0] === '^' &&
        r.args[1] === '$request_uri' &&
        !['redirect', 'permanent'].includes(r.args[2] ?? ''),
    );
    if (rewrite === -1) continue;
    const next = i === chain.length - 1 ? d : chain[i + 1];
    if (!REWRITE_MODULE.has(d.name) || (i === server && next !== d) || own.indexOf(next!) > rewrite)
      return own[rewrite];
  }
  return undefined;
}
