import { topLevelContext, walkInContext } from '../../nginx-config/check-directives.js';
import { judgedVersion, isAtLeast } from '../../nginx-config/nginx-identity.js';
import { childrenNamed, isMainConfig, rootBlock, walkDirectives } from '../../nginx-config/query.js';
import type { NginxConfig } from '../../nginx-config/types.js';
import type { NginxVersionChange } from '../../nginx-config/version-changes.js';
import { changeOf, deprecationFor, laterChangeFor } from '../../nginx-config/version-support.js';
import { ANNOTATION_PREFIX } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';

/** A row as findings cite it: `nginx 1.27.4 (CHANGES: Feature: the "keepalive_min_timeout" directive.)`. */
export function citeChange(row: NginxVersionChange): string {
  return `nginx ${row.version} (CHANGES: ${row.changes})`;
}

function walkWithContext(config: NginxConfig, visit: Parameters<typeof walkInContext>[2]): void {
  walkInContext(
    config.directives,
    config.context ?? topLevelContext(config.directives, config.mainFile),
    visit,
  );
}

/**
 * nginx -t of the judged version refuses a directive or parameter a later release brought
 * (NGINX_VERSION_CHANGES): `keepalive_min_timeout` on 1.22, `server ... resolve` before 1.27.3.
 */
export const DIRECTIVE_NOT_IN_VERSION: LintRule = {
  id: 'directive-not-in-version',
  severity: 'error',
  title: 'a directive or parameter this nginx version does not take',
  message:
    "The nginx this config is judged against predates the release that brought the directive or parameter: nginx -t fails ('unknown directive', 'invalid parameter', 'invalid number of arguments') and a reload keeps the old config. Each finding names the release and its line in nginx's CHANGES.",
  fix: 'upgrade nginx to the release named, or write what this version takes (keepalive 32; without local, listen ... ssl; with http2 on; only from 1.25.1)',
  runbook: null,
  test: (config, nginx) => {
    const hits: RuleHit[] = [];
    walkWithContext(config, (d, context) => {
      if (d.name.startsWith(ANNOTATION_PREFIX)) return;
      const row = laterChangeFor(d, context, nginx);
      if (!row) return;
      const what =
        row.kind === 'parameter'
          ? `${d.name} ${d.args.join(' ')}: nginx ${judgedVersion(nginx)} refuses the "${(row.parameter ?? '').replace(/=$/, '')}" parameter, taken from ${citeChange(row)}`
          : `${d.name}: nginx ${judgedVersion(nginx)} does not know this directive in ${context}, taken from ${citeChange(row)}`;
      hits.push({ file: d.file, line: d.line, directive: d, what });
    });
    return hits;
  },
};

/** nginx 1.25.1 deprecated `listen ... http2` (a warning at every start) for `http2 on;`. */
export const LISTEN_HTTP2_DEPRECATED: LintRule = {
  id: 'listen-http2-deprecated',
  severity: 'warning',
  title: 'listen ... http2 (deprecated since nginx 1.25.1)',
  message:
    'From nginx 1.25.1 the http2 parameter of listen is deprecated: nginx warns at every start and reload ("the \\"listen ... http2\\" directive is deprecated"), and a later release may drop it. The http2 directive turns HTTP/2 on per server instead.',
  fix: 'listen 443 ssl; and http2 on; in the server',
  runbook: null,
  test: (config, nginx) => {
    const hits: RuleHit[] = [];
    walkWithContext(config, (d, context) => {
      const row = deprecationFor(d, context, nginx);
      if (row)
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `listen ${d.args.join(' ')}: deprecated on nginx ${judgedVersion(nginx)}, since ${citeChange(row)}`,
        });
    });
    return hits;
  },
};

/**
 * From 1.27.4 `keepalive_min_timeout` ends the reload residual of docs/deploys.md: without it,
 * old workers close idle client keep-alive connections at each reload, and a request written on
 * one at that instant fails.
 */
export const KEEPALIVE_MIN_TIMEOUT_MISSING: LintRule = {
  id: 'keepalive-min-timeout-missing',
  severity: 'note',
  title: 'no keepalive_min_timeout (nginx 1.27.4 and later)',
  message:
    "At each reload (a deploy that reloads, a certificate renewal) nginx's old workers close their idle client keep-alive connections; a request a client writes on one at that instant gets no answer, and clients that do not resend (POSTs, most SDKs) fail. From nginx 1.27.4 keepalive_min_timeout keeps such a connection open that long before closing it, so a reload no longer races the client.",
  fix: 'keepalive_min_timeout 5s; in http (below keepalive_timeout); see docs/deploys.md, the reload path',
  runbook: null,
  test: (config, nginx) => {
    const row = changeOf('directive', 'keepalive_min_timeout');
    if (!row || !isAtLeast(nginx, row.version) || !isMainConfig(config)) return [];
    const http = childrenNamed(rootBlock(config), 'http')[0];
    if (!http) return [];
    let set = false;
    walkDirectives(config, (d) => {
      if (d.name === 'keepalive_min_timeout') set = true;
    });
    // keepalive_timeout 0 turns client keep-alive off: no idle connection for a reload to close.
    const timeout = childrenNamed(http, 'keepalive_timeout').at(-1);
    if (set || /^0+[a-z]*$/.test(timeout?.args[0] ?? '')) return [];
    const at = timeout ?? http;
    return [
      {
        file: at.file,
        line: at.line,
        directive: at,
        what: `http: no keepalive_min_timeout on nginx ${judgedVersion(nginx)}, which takes it from ${citeChange(row)}`,
      },
    ];
  },
};
