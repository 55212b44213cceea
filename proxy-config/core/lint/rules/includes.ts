import { walkDirectives } from '../../nginx-config/query.js';
import type { LintRule, RuleHit } from '../types.js';

/** An include whose file is not there: lint reads on without it, nginx would refuse to start. */
export const INCLUDE_MISSING: LintRule = {
  id: 'include-missing',
  severity: 'warning',
  title: 'included file not found',
  message:
    'nginx refuses to start when a file named by include (without a wildcard) does not exist. The rest of the config was linted without it: findings that depend on what it holds (headers, limits, upstreams) may be missing or wrong.',
  fix: 'lint with the file in place (or --conf-prefix pointing at the directory relative includes resolve against), or use a wildcard (include conf.d/*.conf) where the file is optional',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (d.name === 'include' && d.missing)
        hits.push({
          file: d.file,
          line: d.line,
          what: `include ${d.args[0] ?? ''}: ${d.missing}; linted without it`,
        });
    });
    return hits;
  },
};
