import { childrenNamed, listLocations, listServers, type BlockScope } from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import { describeBlock } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';

/**
 * Blocks that set `name` themselves while an enclosing level sets headers they do not repeat: nginx
 * inherits such array directives only when a level has none, so the outer ones silently vanish.
 */
function droppedHeaders(config: NginxConfig, name: string): RuleHit[] {
  const hits: RuleHit[] = [];
  const scopes: BlockScope[] = [...listServers(config), ...listLocations(config)];
  for (const { block, chain } of scopes) {
    const own = childrenNamed(block, name);
    if (own.length === 0) continue;
    if (name === 'add_header' && chain.some((b) => childrenNamed(b, 'add_header_inherit').length > 0))
      continue;
    const outer = nearestOuter(chain, name);
    if (!outer) continue;
    const kept = new Set(own.map((d) => (d.args[0] ?? '').toLowerCase()));
    const dropped = outer.filter((d) => !kept.has((d.args[0] ?? '').toLowerCase()));
    if (dropped.length === 0) continue;
    const first = own[0] as NginxDirective;
    const source = dropped[0] as NginxDirective;
    hits.push({
      file: first.file,
      line: first.line,
      what: `${name} in ${describeBlock(block)} drops ${dropped.map((d) => d.args[0] ?? '').join(', ')} set at ${source.file}:${source.line}`,
    });
  }
  return hits;
}

function nearestOuter(chain: NginxDirective[], name: string): readonly NginxDirective[] | undefined {
  for (let i = chain.length - 2; i >= 0; i--) {
    const found = childrenNamed(chain[i] as NginxDirective, name);
    if (found.length > 0) return found;
  }
  return undefined;
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
