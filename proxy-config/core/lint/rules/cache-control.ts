import { matchLocation } from '../../nginx-config/match-location.js';
import {
  childrenNamed,
  effectiveDirectives,
  listLocations,
  locationMatch,
  type BlockScope,
} from '../../nginx-config/query.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import { parseNginxTime } from '../../nginx-config/units.js';
import { describeBlock } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';

/** Location paths that serve HTML documents. */
const HTML_PATH = /\.html?\b|\bhtml?\||\|html?\b|index\.html/i;

/** Location paths that serve content-hashed build output (a hex/alnum run in the name, or the usual build folders). */
const HASHED_PATH =
  /\[(?:[^\]]*(?:a-f|0-9|a-z|\\w|\\d))[^\]]*\](?:\{\d+,?\d*\}|\+)|\/_next\/static\/|\/assets\/|\/static\/(?:js|css|media)\//i;

/**
 * A location serves HTML when its path says so, a file its try_files serves here is an .html one,
 * it is the catch-all `/`, or it is where a catch-all's try_files hands its pages (`pagesFrom`).
 * A try_files whose last argument hands the request to another location (a named one, `@app`, or a
 * URI another location takes, the SPA's `/index.html` beside `location = /index.html`) sends the
 * pages there, where that location's headers apply (nginx 1.22, error-audit-live.test.ts): the
 * catch-all then serves only the files found on disk, its assets.
 */
function servesHtml(
  scope: BlockScope,
  server: BlockScope | undefined,
  pagesFrom: Set<NginxDirective>,
): boolean {
  const { block } = scope;
  const { modifier, path } = locationMatch(block);
  if (HTML_PATH.test(path) || pagesFrom.has(block)) return true;
  const args = childrenNamed(block, 'try_files').at(-1)?.args ?? [];
  const target = handedTo(args.at(-1), block, server);
  if ((target ? args.slice(0, -1) : args).some((a) => /\.html?$/.test(a))) return true;
  return !target && path === '/' && modifier !== '~' && modifier !== '~*';
}

/** The other location try_files' last argument sends the request to, if it is one. */
function handedTo(
  fallback: string | undefined,
  block: NginxDirective,
  server: BlockScope | undefined,
): NginxDirective | undefined {
  if (fallback === undefined || !server || fallback.includes('$')) return undefined;
  const target = fallback.startsWith('@')
    ? childrenNamed(server.block, 'location').find((l) => locationMatch(l).path === fallback)
    : fallback.startsWith('/')
      ? matchLocation(server, fallback.split('?')[0] as string)?.block
      : undefined;
  return target === block ? undefined : target;
}

/** The server a location's chain runs through, as a scope (read from the chain: no search). */
function serverScope(chain: NginxDirective[]): BlockScope | undefined {
  const at = chain.findIndex((level) => level.name === 'server');
  return at === -1 ? undefined : { block: chain[at] as NginxDirective, chain: chain.slice(0, at + 1) };
}

/** The locations a catch-all `location /` hands its pages to through try_files: they serve HTML. */
function pageTargets(locations: readonly BlockScope[]): Set<NginxDirective> {
  const targets = new Set<NginxDirective>();
  for (const { block, chain } of locations) {
    const { modifier, path } = locationMatch(block);
    if (path !== '/' || modifier !== '') continue;
    const server = serverScope(chain);
    const target = handedTo(childrenNamed(block, 'try_files').at(-1)?.args.at(-1), block, server);
    if (target) targets.add(target);
  }
  return targets;
}

interface CachePolicy {
  /** The add_header Cache-Control or expires directive that sets it. */
  source: NginxDirective;
  /** How long a cache may keep the response without asking, in ms (Infinity for `expires max`). */
  freshMs: number;
  immutable: boolean;
  revalidate: boolean;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * How stale HTML cached this long leaves users after a deploy: up to an hour is a choice sites make
 * on purpose (Matomo's expires 1h, a 10-minute max-age); up to a day a warning; longer, or immutable,
 * an error.
 */
function htmlStaleness(policy: CachePolicy): 'error' | 'warning' | undefined {
  if (policy.immutable || policy.freshMs > DAY_MS) return 'error';
  return policy.freshMs > HOUR_MS ? 'warning' : undefined;
}

/** The caching the location's responses get from add_header Cache-Control and expires, after inheritance. */
function cachePolicies(chain: NginxDirective[]): CachePolicy[] {
  const policies: CachePolicy[] = [];
  for (const header of effectiveDirectives(chain, 'add_header')) {
    if ((header.args[0] ?? '').toLowerCase() !== 'cache-control') continue;
    const value = (header.args[1] ?? '').toLowerCase();
    const maxAge = Number(/max-age=(\d+)/.exec(value)?.[1] ?? 0);
    policies.push({
      source: header,
      immutable: value.includes('immutable'),
      freshMs: /no-cache|no-store/.test(value) ? 0 : maxAge * 1000,
      revalidate: /no-cache|no-store|max-age=0\b/.test(value),
    });
  }
  const expires = effectiveDirectives(chain, 'expires')[0];
  if (expires) {
    const value = expires.args.at(-1) ?? '';
    const time = parseNginxTime(value.replace(/^\+/, ''));
    policies.push({
      source: expires,
      immutable: false,
      freshMs: value === 'max' ? Infinity : Math.max(time ?? 0, 0),
      revalidate: value === 'epoch' || value.startsWith('-') || time === 0,
    });
  }
  return policies;
}

/** §4.6: content-hashed assets are cached `immutable`, HTML is `no-cache`; reversed, old pages linger after a deploy. */
export const CACHE_CONTROL_INVERTED: LintRule = {
  id: 'cache-control-inverted',
  severity: 'error',
  title: 'HTML cached long or hashed assets not cached',
  message:
    'HTML cached for more than a day (immutable, max-age, expires; more than an hour is a warning) keeps pointing browsers and CDNs at the previous deploy: users see the old page after a release. Content-hashed assets marked no-cache are re-fetched on every page view for nothing.',
  fix: 'HTML: add_header Cache-Control "no-cache"; content-hashed assets: add_header Cache-Control "public, max-age=31536000, immutable";',
  runbook: RUNBOOKS.stalePage,
  test: (config) => {
    const hits = new Map<string, RuleHit>();
    const locations = listLocations(config);
    const pagesFrom = pageTargets(locations);
    for (const scope of locations) {
      const { block, chain } = scope;
      const server = serverScope(chain);
      const html = servesHtml(scope, server, pagesFrom);
      const hashed = HASHED_PATH.test(locationMatch(block).path);
      if (html === hashed) continue;
      for (const policy of cachePolicies(chain)) {
        const { source } = policy;
        const stale = html ? htmlStaleness(policy) : undefined;
        const what = html
          ? stale && `${describeBlock(block)} serves HTML with "${source.name} ${source.args.join(' ')}"`
          : policy.revalidate
            ? `${describeBlock(block)} serves content-hashed assets with "${source.name} ${source.args.join(' ')}"`
            : undefined;
        if (what)
          hits.set(`${block.file}:${block.line}`, {
            file: source.file,
            line: source.line,
            directive: source,
            what,
            // Hashed assets revalidated on each view cost requests, not correctness: a warning.
            ...(stale === 'warning' || !html ? { severity: 'warning' as const } : {}),
          });
      }
    }
    return [...hits.values()];
  },
};
