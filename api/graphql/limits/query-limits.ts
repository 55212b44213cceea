import type { ApiConfig } from '../../defaults.js';
import type { OperationSize } from './measure-operation.js';

/** One abuse limit of the query endpoint, as data: what it measures and which setting bounds it. */
export interface QueryLimit {
  /** The `extensions.code` of an operation over the limit. */
  code: string;
  measure: keyof OperationSize;
  setting: keyof ApiConfig;
  what: string;
}

/** The limits checked right after parsing, before validation; the token limit is the parser's own. */
export const QUERY_LIMITS: readonly QueryLimit[] = [
  { code: 'DEPTH_LIMIT', measure: 'depth', setting: 'graphqlDepthLimit', what: 'nesting depth' },
  { code: 'COST_LIMIT', measure: 'cost', setting: 'graphqlCostLimit', what: 'cost' },
  { code: 'ALIAS_LIMIT', measure: 'aliases', setting: 'graphqlAliasLimit', what: 'alias count' },
  {
    code: 'DIRECTIVE_LIMIT',
    measure: 'directives',
    setting: 'graphqlDirectiveLimit',
    what: 'directive count',
  },
];

/** One limit an operation exceeds. */
export interface LimitExceeded {
  code: string;
  message: string;
  limit: number;
  actual: number;
}

/** Every limit `size` exceeds under `config` (empty when the operation may run). */
export function findExceededLimits(size: OperationSize, config: ApiConfig): LimitExceeded[] {
  const exceeded: LimitExceeded[] = [];
  for (const rule of QUERY_LIMITS) {
    const limit = config[rule.setting] as number;
    const actual = size[rule.measure];
    if (actual > limit)
      exceeded.push({
        code: rule.code,
        message: `the operation's ${rule.what} is ${actual}, over the limit of ${limit}`,
        limit,
        actual,
      });
  }
  return exceeded;
}
