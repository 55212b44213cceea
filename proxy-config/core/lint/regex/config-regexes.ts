import { locationMatch, walkDirectives } from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';

/** One regular expression nginx compiles, with where it was written. */
export interface ConfigRegex {
  pattern: string;
  /** `~*`, `(?i)` aside: nginx's case-insensitive forms. */
  caseless: boolean;
  /** Where it comes from: `location`, `if`, `map`, `rewrite`, `server_name`, `valid_referers`. */
  source: string;
  /** The directive that holds it (for a map entry: the entry). */
  directive: NginxDirective;
  /** For `if`: the block whose directives see its captures; for `rewrite`: the rewrite itself. */
  scope?: NginxDirective;
}

const IF_OPERATORS = new Set(['~', '~*', '!~', '!~*']);

/**
 * The words of an `if` condition without its parentheses. The parser may keep them glued to the
 * first and last word (`($uri`, `^/x)`) or as words of their own; the trailing `)` is only taken
 * off when the leading `(` was, so a pattern ending in `)` is left whole.
 */
export function ifCondition(directive: NginxDirective): string[] {
  const words = [...directive.args];
  const first = words[0] ?? '';
  if (!first.startsWith('(')) return words;
  if (first === '(') words.shift();
  else words[0] = first.slice(1);
  const last = words.length - 1;
  const end = words[last] ?? '';
  if (end === ')') words.pop();
  else if (end.endsWith(')')) words[last] = end.slice(0, -1);
  return words;
}

/** Every regex in the config nginx compiles at start-up, in reading order. */
export function listConfigRegexes(config: NginxConfig): ConfigRegex[] {
  const found: ConfigRegex[] = [];
  walkDirectives(config, (d) => {
    switch (d.name) {
      case 'location': {
        const { modifier, path } = locationMatch(d);
        if (modifier === '~' || modifier === '~*')
          found.push({ pattern: path, caseless: modifier === '~*', source: 'location', directive: d });
        break;
      }
      case 'if': {
        const [, operator, pattern] = ifCondition(d);
        if (operator && IF_OPERATORS.has(operator) && pattern !== undefined)
          found.push({ pattern, caseless: operator.endsWith('*'), source: 'if', directive: d, scope: d });
        break;
      }
      case 'rewrite':
        if (d.args[0] !== undefined)
          found.push({ pattern: d.args[0], caseless: false, source: 'rewrite', directive: d, scope: d });
        break;
      case 'server_name':
      case 'valid_referers':
        for (const arg of d.args)
          if (arg.startsWith('~'))
            found.push({
              pattern: arg.slice(1),
              caseless: d.name === 'server_name',
              source: d.name,
              directive: d,
            });
        break;
      case 'map':
        for (const entry of d.entries ?? [])
          if (entry.name.startsWith('~'))
            found.push({
              pattern: entry.name.replace(/^~\*?/, ''),
              caseless: entry.name.startsWith('~*'),
              source: 'map',
              directive: entry,
            });
        break;
      default:
        break;
    }
  });
  return found;
}
