import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { API_DEFAULTS } from '../../../../api/defaults.js';
import { findFragmentCycle, measureOperation } from '../../../../api/graphql/limits/measure-operation.js';
import { findExceededLimits, QUERY_LIMITS } from '../../../../api/graphql/limits/query-limits.js';
import { createGraphqlSchema } from '../../../../api/graphql/schema.js';

const schema = createGraphqlSchema();
const measure = (query: string, variables: Record<string, unknown> = {}) => {
  const document = parse(query);
  const operation = getOperationAST(document);
  if (!operation) throw new Error('no operation');
  return measureOperation({ schema, document, operation, variables, defaultListSize: 20 });
};

describe('measureOperation', () => {
  it('counts depth from the top-level field and ignores introspection', () => {
    expect(measure('{ me { id } }').depth).toBe(2);
    expect(measure('{ __schema { types { fields { type { name } } } } me { id } }').depth).toBe(2);
    expect(measure('{ __typename }')).toEqual({ depth: 0, cost: 0, aliases: 0, directives: 0 });
  });

  it('multiplies list children by first/last, a variable, or the default list size', () => {
    expect(
      measure('{ users(first: 50) { orders(last: 5) { items { productName } user { name } } } }').cost,
    ).toBe(1 + 50 * (1 + 5 * (1 + 20 * 1 + (1 + 1))));
    expect(measure('query($n: Int) { users(first: $n) { id } }', { n: 7 }).cost).toBe(1 + 7);
    expect(measure('{ users { id name } }').cost).toBe(1 + 20 * 2);
    expect(measure('{ me { id name } }').cost).toBe(1 + 2);
  });

  it('follows fragments, inline and named, and survives a fragment cycle', () => {
    const viaFragment = measure(
      '{ me { ...Deep } } fragment Deep on User { orders(first: 2) { user { id } } }',
    );
    expect(viaFragment).toMatchObject({ depth: 4, cost: 1 + 1 + 2 * (1 + 1) });
    expect(measure('{ me { ... on User { id } } }').depth).toBe(2);
    const cyclic = measure('{ me { ...A } } fragment A on User { orders(first: 1) { user { ...A } } }');
    expect(cyclic.depth).toBe(3);
  });

  it('measures a fragment bomb in linear time and gives its exponential cost', () => {
    const levels = 30;
    const fragments = [
      'fragment F0 on User { name }',
      ...Array.from({ length: levels }, (_, i) => `fragment F${i + 1} on User { ...F${i} ...F${i} }`),
    ];
    const size = measure(`{ me { ...F${levels} } } ${fragments.join(' ')}`);
    // me (1) + 2^30 names: only a memoised measure gets here; one that expands each spread never returns.
    expect(size.cost).toBe(1 + 2 ** levels);
  });

  it('finds fragment cycles, direct and through others, and none in a plain tree', () => {
    const doc = (text: string) => parse(text);
    expect(
      findFragmentCycle(doc('{ me { ...A } } fragment A on User { ...B } fragment B on User { ...A }')),
    ).toBe('A -> B -> A');
    expect(findFragmentCycle(doc('{ me { ...A } } fragment A on User { ... on User { ...A } }'))).toBe(
      'A -> A',
    );
    expect(
      findFragmentCycle(doc('{ me { ...A ...B } } fragment A on User { ...B } fragment B on User { id }')),
    ).toBe(undefined);
  });

  it('counts directives in the whole document', () => {
    expect(measure('query($x: Boolean!) { me @include(if: $x) { id @skip(if: $x) } }').directives).toBe(2);
  });

  it('counts aliases in the whole document', () => {
    expect(measure('{ a: me { b: id } c: __typename }').aliases).toBe(3);
  });
});

describe('QUERY_LIMITS', () => {
  it('are pinned: codes, measures and settings', () => {
    expect(QUERY_LIMITS.map((l) => [l.code, l.measure, l.setting])).toEqual([
      ['DEPTH_LIMIT', 'depth', 'graphqlDepthLimit'],
      ['COST_LIMIT', 'cost', 'graphqlCostLimit'],
      ['ALIAS_LIMIT', 'aliases', 'graphqlAliasLimit'],
      ['DIRECTIVE_LIMIT', 'directives', 'graphqlDirectiveLimit'],
    ]);
  });

  it('report every limit exceeded, none at the limit itself', () => {
    const config = { ...API_DEFAULTS };
    expect(findExceededLimits({ depth: 10, cost: 10_000, aliases: 30, directives: 50 }, config)).toEqual([]);
    expect(
      findExceededLimits({ depth: 11, cost: 10_001, aliases: 31, directives: 51 }, config).map((e) => e.code),
    ).toEqual(['DEPTH_LIMIT', 'COST_LIMIT', 'ALIAS_LIMIT', 'DIRECTIVE_LIMIT']);
  });
});
