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

/** Direct children of a block with the given name (no descent, no inheritance). */
export function childrenNamed(block: NginxDirective, name: string): NginxDirective[] {
  return (block.children ?? []).filter((child) => child.name === name);
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

/** Every block with the given name (e.g. `server`, `location`, `upstream`), nested ones included. */
export function findBlocks(config: NginxConfig, name: string): BlockScope[] {
  const found: BlockScope[] = [];
  walkDirectives(config, (directive, chain) => {
    if (directive.name === name && directive.children)
      found.push({ block: directive, chain: [...chain, directive] });
  });
  return found;
}

/** Every `location` block (nested ones too), each with its chain root → http → server → location. */
export function listLocations(config: NginxConfig): BlockScope[] {
  return findBlocks(config, 'location').filter(isHttpScope);
}

/** Every `server` block of the http context (not the `server` lines of upstream groups). */
export function listServers(config: NginxConfig): BlockScope[] {
  return findBlocks(config, 'server').filter(isHttpScope);
}

/** True for blocks of the http context (not inside `stream {}` or `mail {}`). */
export function isHttpScope(scope: BlockScope): boolean {
  return !scope.chain.some((block) => block.name === 'stream' || block.name === 'mail');
}

/** The http `upstream {}` groups with their chains. */
export function listUpstreamScopes(config: NginxConfig): BlockScope[] {
  return findBlocks(config, 'upstream').filter(isHttpScope);
}

/** The http `upstream {}` groups by name. */
export function listUpstreams(config: NginxConfig): Map<string, NginxDirective> {
  return new Map(
    findBlocks(config, 'upstream')
      .filter(isHttpScope)
      .map(({ block }) => [block.args[0] ?? '', block]),
  );
}

/**
 * The directives named `name` in effect at the end of `chain`, with nginx's inheritance: the
 * innermost level that has any of them wins and outer levels are ignored entirely (so one
 * `proxy_set_header` in a location drops every server-level one). Empty when no level sets it.
 */
export function effectiveDirectives(chain: ScopeChain, name: string): NginxDirective[] {
  for (let i = chain.length - 1; i >= 0; i--) {
    const found = childrenNamed(chain[i] as NginxDirective, name);
    if (found.length > 0) return found;
  }
  return [];
}

/** The single directive named `name` in effect at the end of `chain` (the first at the winning level). */
export function effectiveDirective(chain: ScopeChain, name: string): NginxDirective | undefined {
  return effectiveDirectives(chain, name)[0];
}

/** The first argument of the effective directive `name`, or `fallback` (nginx's default) when unset. */
export function effectiveValue(chain: ScopeChain, name: string, fallback?: string): string | undefined {
  return effectiveDirective(chain, name)?.args[0] ?? fallback;
}

/** The headers a location sends upstream: name (lower-cased) → value, after inheritance. */
export function effectiveProxyHeaders(chain: ScopeChain): Map<string, string> {
  return new Map(
    effectiveDirectives(chain, 'proxy_set_header').map((d) => [
      (d.args[0] ?? '').toLowerCase(),
      d.args[1] ?? '',
    ]),
  );
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
