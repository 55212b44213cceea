import { ifCondition } from '../../nginx-config/if-condition.js';
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
        const condition = ifCondition(d);
        if (condition?.regex !== undefined)
          found.push({
            pattern: condition.regex,
            caseless: condition.caseless,
            source: 'if',
            directive: d,
            scope: d,
          });
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
