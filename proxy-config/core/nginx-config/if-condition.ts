import type { NginxDirective } from './types.js';

/** The parts of an `if (...)` condition that compares a variable. */
export interface IfCondition {
  variable: string;
  operator: string;
  /** The regex of a `~`/`~*`/`!~`/`!~*` comparison. */
  regex?: string;
  negated: boolean;
  caseless: boolean;
}

/**
 * Reads `if ($var OP value)` whether or not the parser kept the parentheses in the arguments
 * (`($http_origin`, `~`, `x)` or `$http_origin`, `~`, `x`). Undefined for file checks (`-f`) and bare
 * variables.
 */
export function ifCondition(block: NginxDirective): IfCondition | undefined {
  const args = [...block.args];
  if (args[0]?.startsWith('(')) {
    args[0] = args[0].slice(1);
    const last = args.length - 1;
    args[last] = (args[last] ?? '').replace(/\)$/, '');
  }
  const parts = args.filter((a) => a !== '');
  const [variable, operator, value] = parts;
  if (parts.length !== 3 || !variable?.startsWith('$') || operator === undefined || value === undefined)
    return undefined;
  const isRegex = /^!?~\*?$/.test(operator);
  return {
    variable,
    operator,
    regex: isRegex ? value : undefined,
    negated: operator.startsWith('!'),
    caseless: operator.endsWith('*'),
  };
}
