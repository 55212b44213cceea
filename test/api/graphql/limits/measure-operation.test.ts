import { getOperationAST, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { API_DEFAULTS } from '../../../../api/defaults.js';
import { measureOperation } from '../../../../api/graphql/limits/measure-operation.js';
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
    expect(measure('{ __typename }')).toEqual({ depth: 0, cost: 0, aliases: 0 });
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
    ]);
  });

  it('report every limit exceeded, none at the limit itself', () => {
    const config = { ...API_DEFAULTS };
    expect(findExceededLimits({ depth: 10, cost: 10_000, aliases: 30 }, config)).toEqual([]);
    expect(findExceededLimits({ depth: 11, cost: 10_001, aliases: 31 }, config).map((e) => e.code)).toEqual([
      'DEPTH_LIMIT',
      'COST_LIMIT',
      'ALIAS_LIMIT',
    ]);
  });
});
