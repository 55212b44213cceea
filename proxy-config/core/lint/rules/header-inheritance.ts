import { passDirective } from '../../nginx-config/pass-directives.js';
import {
  childrenNamed,
  effectiveValue,
  findBlocks,
  isHttpScope,
  listLocations,
  listServers,
  locationMatch,
  walkDirectives,
  type BlockScope,
} from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import { describeBlock } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import { locationNeverMatches } from './regexes.js';
import type { LintRule, RuleHit } from '../types.js';

/** How a level inherits outer `add_header`s (nginx 1.29.3's `add_header_inherit`, itself inherited). */
type InheritMode = 'on' | 'off' | 'merge';

interface Effect {
  headers: readonly NginxDirective[];
  mode: InheritMode;
}

/** Per block and directive name: computed once, so a server with many locations is read once. */
const EFFECTS = new WeakMap<NginxDirective, Map<string, Effect>>();

/**
 * The `name` directives in effect in `chain[i]`, and its inherit mode: a level with its own replaces
 * the outer ones, unless `add_header_inherit merge` appends them or `off` drops them.
 */
function effectAt(chain: NginxDirective[], i: number, name: string): Effect {
  if (i < 0) return { headers: [], mode: 'on' };
  const block = chain[i] as NginxDirective;
  const cached = EFFECTS.get(block)?.get(name);
  if (cached) return cached;
  const outer = effectAt(chain, i - 1, name);
  const declared =
    name === 'add_header' ? childrenNamed(block, 'add_header_inherit').at(-1)?.args[0] : undefined;
  const mode: InheritMode =
    declared === 'on' || declared === 'off' || declared === 'merge' ? declared : outer.mode;
  const own = childrenNamed(block, name);
  const headers =
    mode === 'off'
      ? own
      : mode === 'merge'
        ? [...outer.headers, ...own]
        : own.length > 0
          ? own
          : outer.headers;
  const effect = { headers, mode };
  EFFECTS.set(block, (EFFECTS.get(block) ?? new Map<string, Effect>()).set(name, effect));
  return effect;
}

/**
 * Blocks (server, location, if) that set `name` themselves while an enclosing level sets headers
 * they do not repeat: nginx inherits such array directives only when a level has none, so the
 * outer ones silently vanish. `add_header_inherit merge` keeps them, and `off` drops them on purpose.
 */
function droppedHeaders(config: NginxConfig, name: string): RuleHit[] {
  const hits: RuleHit[] = [];
  const ifs = findBlocks(config, 'if').filter(isHttpScope);
  const scopes: BlockScope[] = [...listServers(config), ...listLocations(config), ...ifs];
  for (const { block, chain } of scopes) {
    const own = childrenNamed(block, name);
    if (own.length === 0 || effectAt(chain, chain.length - 1, name).mode !== 'on') continue;
    if (name === 'add_header' && neverReached(chain)) continue;
    if (chain.some(locationNeverMatches)) continue;
    const kept = new Set(own.map((d) => (d.args[0] ?? '').toLowerCase()));
    const answers = name === 'add_header' ? fixedAnswer(block) : undefined;
    const dropped = effectAt(chain, chain.length - 2, name).headers.filter(
      (d) =>
        !kept.has((d.args[0] ?? '').toLowerCase()) &&
        // A header without `always` is sent with these statuses only: on a block that answers
        // with another one (return 403), the outer header could never have been sent.
        (answers === undefined || ADD_HEADER_STATUSES.has(answers) || d.args.includes('always')) &&
        // A 204 (the CORS preflight answer) has no body for a body's header to act on.
        !(answers === '204' && BODY_HEADERS.has((d.args[0] ?? '').toLowerCase())) &&
        (name !== 'add_header' ||
          (!sendsNothing(d) && !noEtagToRemove(d, block, chain) && !noUpstreamValues(d, block, chain))) &&
        (name !== 'proxy_set_header' || !emptyWithoutAuthRequest(d, chain, config)),
    );
    if (dropped.length === 0) continue;
    const first = own[0] as NginxDirective;
    const source = dropped[0] as NginxDirective;
    hits.push({
      file: first.file,
      line: first.line,
      directive: first,
      what: `${name} in ${describeBlock(block)} drops ${dropped.map((d) => d.args[0] ?? '').join(', ')} set at ${source.file}:${source.line}`,
    });
  }
  return hits;
}

/**
 * A proxy_set_header made only of `auth_request_set` variables, in a block without auth_request
 * (none in effect, or `auth_request off`): the variables are empty there and nginx sends no header
 * with an empty value, so the block loses nothing (Frigate's Remote-* headers on its login location).
 */
function emptyWithoutAuthRequest(
  header: NginxDirective,
  chain: BlockScope['chain'],
  config: NginxConfig,
): boolean {
  if (effectiveValue(chain, 'auth_request', 'off') !== 'off') return false;
  const authVariables = authRequestVariables(config);
  const rest = (header.args[1] ?? '').replace(/\$\{?(\w+)\}?/g, (word, variable: string) =>
    authVariables.has(variable.toLowerCase()) ? '' : word,
  );
  return rest.trim() === '' && (header.args[1] ?? '') !== '';
}

const AUTH_VARIABLES = new WeakMap<NginxConfig, ReadonlySet<string>>();

/** The variables `auth_request_set` defines anywhere in the config (lower-cased), read once per config. */
function authRequestVariables(config: NginxConfig): ReadonlySet<string> {
  let found = AUTH_VARIABLES.get(config);
  if (!found) {
    const names = new Set<string>();
    walkDirectives(config, (d) => {
      const variable = d.name === 'auth_request_set' ? /^\$(\w+)$/.exec(d.args[0] ?? '')?.[1] : undefined;
      if (variable) names.add(variable.toLowerCase());
    });
    AUTH_VARIABLES.set(config, names);
    found = names;
  }
  return found;
}

/** The statuses add_header (without `always`) adds its header to, as nginx's headers filter. */
const ADD_HEADER_STATUSES = new Set(['200', '201', '204', '206', '301', '302', '303', '304', '307', '308']);

/** Headers that act on the response body: meaningless on a 204, which has none. */
const BODY_HEADERS = new Set([
  'cache-control',
  'expires',
  'content-security-policy',
  'content-security-policy-report-only',
  'x-frame-options',
  'x-content-type-options',
  'x-xss-protection',
  'referrer-policy',
  'permissions-policy',
  'cross-origin-embedder-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'x-robots-tag',
]);

/**
 * An add_header whose value is the empty literal: nginx adds no header for an empty value, so losing
 * it changes nothing. Except ETag and Last-Modified, where nginx's headers filter reads an empty value
 * as "remove the header" (the Rails assets idiom `add_header ETag "";`): dropping that one brings the
 * header back. A value made of variables is not judged: even $upstream_* can be set in a location
 * without proxy_pass, reached by X-Accel-Redirect from a proxied one.
 */
function sendsNothing(d: NginxDirective): boolean {
  const header = (d.args[0] ?? '').toLowerCase();
  return d.args[1] === '' && header !== 'etag' && header !== 'last-modified';
}

/** True when the block, or a block inside it (a nested location, an if), hands on an upstream's response. */
function passesUpstream(block: NginxDirective): boolean {
  return (block.children ?? []).some(
    (c) => passDirective(c.name)?.upstreamHeaders === true || passesUpstream(c),
  );
}

/**
 * A dropped `add_header ETag "";` where nginx makes no ETag of its own (`etag off` in effect, as in
 * Discourse's sample) and nothing in the block hands on an upstream's: the files it serves come
 * without one anyway (checked with curl on nginx 1.22), so there is nothing to remove.
 */
function noEtagToRemove(d: NginxDirective, block: NginxDirective, chain: NginxDirective[]): boolean {
  return (
    (d.args[0] ?? '').toLowerCase() === 'etag' &&
    effectiveValue(chain, 'etag', 'on') === 'off' &&
    !passesUpstream(block)
  );
}

/**
 * A dropped add_header made only of `$upstream_*` variables (Mastodon's `X-Cached
 * $upstream_cache_status` at server level) in a block that proxies nothing: nginx sends no header
 * with an empty value, and no upstream fills them there. Except where an upstream's X-Accel-Redirect
 * may land, which keeps its values (checked with curl on nginx 1.22): an `internal` location, the
 * target such redirects are written for, or a named one. A static location for clients is judged
 * by that intent, though a redirect could name it too.
 */
function noUpstreamValues(d: NginxDirective, block: NginxDirective, chain: NginxDirective[]): boolean {
  const value = d.args[1] ?? '';
  if (!/^(?:\$\{?upstream_\w+\}?)+$/i.test(value)) return false;
  // The location the block is, or sits in (an if): a server-level add_header is not judged.
  const locations = chain.filter((level) => level.name === 'location');
  const innermost = locations.at(-1);
  return (
    innermost !== undefined &&
    !passesUpstream(block) &&
    !passesUpstream(innermost) &&
    !locations.some((l) => childrenNamed(l, 'internal').length > 0 || locationMatch(l).path.startsWith('@'))
  );
}

/** The status a block always answers with (its own `return CODE`), if it has one. */
function fixedAnswer(block: NginxDirective): string | undefined {
  const code = childrenNamed(block, 'return').at(0)?.args[0] ?? '';
  return /^\d{3}$/.test(code) ? code : undefined;
}

/**
 * A location inside a server that answers every request with its own `return` (the http → https
 * redirect server): nginx returns in the server's rewrite phase, before any location is chosen.
 */
function neverReached(chain: NginxDirective[]): boolean {
  const serverAt = chain.findIndex((level) => level.name === 'server');
  return (
    serverAt !== -1 &&
    serverAt < chain.length - 1 &&
    childrenNamed(chain[serverAt] as NginxDirective, 'return').length > 0
  );
}

/** gixy's add_header_redefinition: one add_header in a location drops every server-level header. */
export const ADD_HEADER_DROPPED: LintRule = {
  id: 'add-header-dropped',
  severity: 'warning',
  title: 'add_header drops headers set at an outer level',
  message:
    'A block with any add_header of its own inherits none from outer levels: security headers (HSTS, X-Frame-Options) and Cache-Control set at server level silently disappear from its responses.',
  fix: 'repeat the outer add_header lines in the block (an include snippet keeps them in one place), or move the block-specific header out',
  runbook: RUNBOOKS.addHeaderDropped,
  test: (config) => droppedHeaders(config, 'add_header'),
};

/** The same inheritance trap for headers sent upstream. */
export const PROXY_HEADER_DROPPED: LintRule = {
  id: 'proxy-header-dropped',
  severity: 'warning',
  title: 'proxy_set_header drops headers set at an outer level',
  message:
    'A block with any proxy_set_header of its own inherits none from outer levels: Host reverts to the upstream name and X-Forwarded-*/X-Request-ID stop reaching the app for that block only.',
  fix: 'repeat the outer proxy_set_header lines in the block (an include snippet keeps them in one place)',
  runbook: RUNBOOKS.proxyHeadersDropped,
  test: (config) => droppedHeaders(config, 'proxy_set_header'),
};
