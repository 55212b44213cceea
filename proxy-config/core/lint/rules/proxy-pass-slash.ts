import { childrenNamed, locationMatch } from '../../nginx-config/query.js';
import { listProxiedLocations } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';

/** True when `block` holds a prefix location for exactly `path`. */
function prefixSibling(block: NginxDirective, path: string): boolean {
  return childrenNamed(block, 'location').some((l) => {
    const match = locationMatch(l);
    return (match.modifier === '' || match.modifier === '^~') && match.path === path;
  });
}

/**
 * With a URI part in proxy_pass, nginx replaces the part of the request path that matched a prefix
 * location with that URI, character for character. So the location and the URI must agree on the
 * trailing slash: `/api` + `http://u/` turns /api/users into //users, `/api/` + `http://u/v1` turns
 * /api/users into /v1users. Without a URI part the path is passed unchanged, which is always safe.
 */
export const PROXY_PASS_SLASH_MISMATCH: LintRule = {
  id: 'proxy-pass-slash-mismatch',
  severity: 'error',
  title: 'proxy_pass trailing slash does not match its location',
  message:
    'nginx replaces the matched location prefix with the proxy_pass URI literally, so a trailing slash on one side only forwards paths like //users or /v1users: the upstream answers 404.',
  fix: 'end both the location and the proxy_pass URI with "/" (location /api/ { proxy_pass http://u/v1/; }), or neither, or drop the URI part to pass the path unchanged',
  runbook: RUNBOOKS.trailingSlash,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const { block, chain, proxyPass, target } of listProxiedLocations(config)) {
      const { modifier, path } = locationMatch(block);
      // A named location has no prefix to replace (nginx refuses the URI part there).
      if ((modifier !== '' && modifier !== '^~') || path.startsWith('@')) continue;
      if (!target || target.hasVariables || target.uri === undefined) continue;
      // After `rewrite ... break` nginx passes the rewritten URI whole and ignores the URI part.
      if (childrenNamed(block, 'rewrite').length > 0) continue;
      if (path.endsWith('/') === target.uri.endsWith('/')) continue;
      // `location /api` beside `location /api/`: nginx sends /api/users to the longer prefix, so
      // this one gets only /api itself (and /apifoo), never a path its URI part would double.
      const parent = chain.at(-2);
      if (!path.endsWith('/') && parent && prefixSibling(parent, `${path}/`)) continue;
      const request = path.endsWith('/') ? `${path}users` : `${path}/users`;
      hits.push({
        file: proxyPass.file,
        line: proxyPass.line,
        directive: proxyPass,
        what: `location ${path} with proxy_pass ${proxyPass.args[0] ?? ''} forwards ${request} as ${target.uri}${request.slice(path.length)}`,
      });
    }
    return hits;
  },
};
