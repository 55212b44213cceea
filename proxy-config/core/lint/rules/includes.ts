import { NGINX_CONF_DIR } from '../../nginx-config/conf-dir.js';
import { walkDirectives } from '../../nginx-config/query.js';
import { includesStockFile } from '../../nginx-config/stock-files.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';

/**
 * An include of a stock file, linted away from an installed nginx (the main file is not under
 * /etc/nginx): the host's own copy is assumed. Under /etc/nginx a missing one is really missing.
 */
function stockFileAssumed(config: NginxConfig, include: NginxDirective): boolean {
  return includesStockFile(include) && !config.mainFile.startsWith(NGINX_CONF_DIR);
}

/** An include whose file is not there: lint reads on without it, nginx would refuse to start. */
export const INCLUDE_MISSING: LintRule = {
  id: 'include-missing',
  severity: 'warning',
  title: 'included file not found',
  message:
    'nginx refuses to start when a file named by include (without a wildcard) does not exist. The rest of the config was linted without it: findings that depend on what it holds (headers, limits, upstreams) may be missing or wrong.',
  fix: "lint with the file in place (or --conf-prefix pointing at the directory relative includes resolve against; a vhost drafted outside /etc/nginx that includes /etc/nginx/snippets/x.conf is linted against this machine's /etc/nginx with --conf-prefix /etc/nginx), or use a wildcard (include conf.d/*.conf) where the file is optional",
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (d.name === 'include' && d.missing && !stockFileAssumed(config, d))
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `include ${d.args[0] ?? ''}: ${d.missing}; linted without it`,
        });
    });
    return hits;
  },
};
