import { walkDirectives } from '../../nginx-config/query.js';
import type { LintRule, RuleHit } from '../types.js';

/**
 * A `;` lost at the end of a line where nginx accepts what follows as more arguments (the parser
 * refuses the cases nginx refuses): the next line's directive silently does not exist.
 */
export const SEMICOLON_MISSING: LintRule = {
  id: 'semicolon-missing',
  severity: 'warning',
  title: 'missing ";" swallows the next directive',
  message:
    'nginx reads a directive on to the next ";", across lines: when one line lacks its ";", the directive on the next line becomes more arguments of it (server_name a.example with expires off; below it gets two more server names, "expires" and "off"). nginx -t says the test is successful, and the swallowed directive is never applied.',
  fix: 'end the line with ";"',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (!d.runsOnAt) return;
      const { line, word, arg } = d.runsOnAt;
      const before = [d.name, ...d.args.slice(0, arg)].join(' ');
      const swallowed = d.args.slice(arg);
      hits.push({
        file: d.file,
        line: d.line,
        directive: d,
        what: `${before} has no ";": nginx reads "${swallowed.join(' ')}" (line ${line}) as ${swallowed.length} more argument${swallowed.length === 1 ? '' : 's'} of ${d.name}, and ${word} is never applied`,
      });
    });
    return hits;
  },
};
