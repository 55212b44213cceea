import { NGINX_CONF_DIR } from '../../nginx-config/conf-dir.js';
import { childrenNamed, walkDirectives, type ScopeChain } from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';

/**
 * Files every nginx package installs in its conf directory (nginx's own conf/ and Debian's
 * snippets/): a config published without them still finds them on the host that runs it.
 */
const STOCK_FILES = new Set([
  'mime.types',
  'fastcgi_params',
  'fastcgi.conf',
  'uwsgi_params',
  'scgi_params',
  'koi-utf',
  'koi-win',
  'win-utf',
  'snippets/fastcgi-php.conf',
  'snippets/snakeoil.conf',
]);

/**
 * An include of a stock file, linted away from an installed nginx (the main file is not under
 * /etc/nginx): the host's own copy is assumed. Under /etc/nginx a missing one is really missing.
 */
function stockFileAssumed(config: NginxConfig, include: NginxDirective): boolean {
  return includesStockFile(include) && !config.mainFile.startsWith(NGINX_CONF_DIR);
}

/** An include of a stock file: MIME types, charset maps, *_param lines, Debian's two snippets. */
function includesStockFile(include: NginxDirective): boolean {
  const written = include.args[0] ?? '';
  return STOCK_FILES.has(written.startsWith(NGINX_CONF_DIR) ? written.slice(NGINX_CONF_DIR.length) : written);
}

/**
 * True when an include that was not found could have set `name` for the end of the chain: it sits
 * at the innermost level that sets `name`, or inside it (outer levels are overridden), and is no
 * stock file, whose contents are known and set nothing a rule asks about here.
 */
export function unreadIncludeCouldSet(chain: ScopeChain, name: string): boolean {
  const from = Math.max(
    0,
    chain.findLastIndex((level) => childrenNamed(level, name).length > 0),
  );
  return chain
    .slice(from)
    .some((level) =>
      childrenNamed(level, 'include').some((d) => d.missing !== undefined && !includesStockFile(d)),
    );
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
