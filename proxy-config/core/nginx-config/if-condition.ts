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
 * Reads `if ($var OP value)`; the parser has already taken the parentheses off (readIfCondition).
 * Undefined for file checks (`-f`) and bare variables.
 */
export function ifCondition(block: NginxDirective): IfCondition | undefined {
  const [variable, operator, value] = block.args;
  if (block.args.length !== 3 || !variable?.startsWith('$') || operator === undefined || value === undefined)
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
