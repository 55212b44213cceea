import type { ScopeChain } from '../nginx-config/query.js';
import type { NginxDirective } from '../nginx-config/types.js';

/** The access list in effect at the end of `chain`: the innermost level with any allow/deny wins. */
export function effectiveAccessList(chain: ScopeChain): NginxDirective[] {
  for (let i = chain.length - 1; i >= 0; i--) {
    const rules = (chain[i]?.children ?? []).filter((d) => d.name === 'allow' || d.name === 'deny');
    if (rules.length > 0) return rules;
  }
  return [];
}

/** The addresses `allow`/`deny` take for everyone. */
export const EVERYONE: ReadonlySet<string> = new Set(['all', '0.0.0.0/0', '::/0']);

/**
 * Whom an access list lets in, read the way nginx does (first matching rule wins): `listed` when a
 * `deny all` comes before any allow of everyone, `everyone` otherwise, `no-list` without rules.
 */
export function admits(rules: NginxDirective[]): 'listed' | 'everyone' | 'no-list' {
  if (rules.length === 0) return 'no-list';
  for (const rule of rules)
    if (EVERYONE.has(rule.args[0] ?? '')) return rule.name === 'deny' ? 'listed' : 'everyone';
  return 'everyone';
}
