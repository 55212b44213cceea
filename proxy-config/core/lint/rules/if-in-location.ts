import { walkDirectives } from '../../nginx-config/query.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import { describeBlock } from '../proxied-locations.js';
import type { LintRule, RuleHit } from '../types.js';

/** What an `if` in a location can do safely: end request processing there and then. */
function endsProcessing(d: NginxDirective): boolean {
  if (d.name === 'return') return true;
  return d.name === 'rewrite' && ['last', 'redirect', 'permanent'].includes(d.args[2] ?? '');
}

/** nginx's "If is evil" (gixy's if_is_evil): an `if` in a location is a location of its own. */
export const IF_IN_LOCATION: LintRule = {
  id: 'if-in-location',
  severity: 'warning',
  title: 'if in a location does more than return or rewrite … last',
  message:
    'When its condition holds, an if inside a location becomes the location that handles the request: directives of the outer location such as try_files, add_header or proxy_set_header stop applying, two proxy_pass/content directives interact unpredictably, and some combinations crash workers. Only return and rewrite … last|redirect|permanent are safe there.',
  fix: 'compute the value with map and use it outside the if (add_header X $x_from_map;), or return/rewrite … last to a location of its own',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      const block = chain.at(-1);
      if (d.name !== 'if' || block?.name !== 'location') return;
      const children = d.children ?? [];
      // An if that ends with return answers there and then: the add_header lines of a CORS
      // preflight block (`if ($request_method = OPTIONS) { add_header …; return 204; }`) apply to
      // that answer, and nothing of the outer location runs after it.
      if (children.some((inner) => inner.name === 'return')) return;
      const risky = children.filter((inner) => !endsProcessing(inner));
      const first = risky[0];
      // One finding per if: the if is the mistake, not each line in it.
      if (first)
        hits.push({
          file: first.file,
          line: first.line,
          directive: first,
          what: `${[...new Set(risky.map((inner) => inner.name))].join(', ')} inside if ${d.args.join(' ')} in ${describeBlock(block)}`,
        });
    });
    return hits;
  },
};
