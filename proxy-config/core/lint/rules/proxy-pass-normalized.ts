import { parseProxyPassTarget } from '../../nginx-config/proxy-pass-target.js';
import {
  childrenNamed,
  isHttpScope,
  locationMatch,
  rawPathRewrite,
  walkDirectives,
} from '../../nginx-config/query.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';

/** What carries the raw path on once `rewrite ^ $request_uri` set it: $uri, a capture, $request_uri. */
const CARRIES_PATH = /\$\{?(?:uri\b|request_uri\b|\d)/;

/**
 * gixy's proxy_pass_normalized. nginx matches and proxies the decoded, normalized path ($uri:
 * %2F is already "/", "//" and "/../" resolved). Without a URI part in proxy_pass it sends the
 * request's own path unchanged; with one, or once a rewrite changed the path, it sends $uri
 * re-escaped. Two forms are mistakes whatever sits around the config: the raw-path trick
 * `rewrite ^ $request_uri;` followed by a proxy_pass that does not pass $uri or the capture on
 * (the still-encoded path is escaped a second time: /a%2Fb arrives as /a%252Fb), and a URI part
 * that only repeats the prefix location (it changes no path but trades the request's path for the
 * decoded one: /a%2Fb arrives as /a/b).
 */
export const PROXY_PASS_NORMALIZED: LintRule = {
  id: 'proxy-pass-normalized',
  severity: 'warning',
  title: 'proxy_pass sends a decoded or doubly encoded path',
  message:
    "After `rewrite ^ $request_uri;` the path nginx proxies is the raw, still %-encoded one, and a proxy_pass that does not carry it on ($uri or the capture) escapes it again: /a%2Fb reaches the upstream as /a%252Fb. A proxy_pass URI part that merely repeats its prefix location changes no path, yet makes nginx send the decoded, normalized path instead of the request's own: /a%2Fb arrives as /a/b, which breaks apps that route on encoded slashes and lets the upstream see a path other than the one the client sent.",
  fix: 'after `rewrite ^ $request_uri;` write proxy_pass http://u$uri; (the raw path the rewrite set, as any later rewrite left it; or the capture: proxy_pass http://u/$1;); a URI part equal to the location is dropped: location /api/ { proxy_pass http://u; }',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (pass, chain) => {
      if (pass.name !== 'proxy_pass' || !isHttpScope({ block: pass, chain })) return;
      const at = chain.findLastIndex((block) => block.name === 'location');
      if (at === -1) return;
      const arg = pass.args[0] ?? '';
      const target = parseProxyPassTarget(arg);
      if (!target) return;
      const rawPath = rawPathRewrite(pass, chain);
      if (rawPath) {
        if (CARRIES_PATH.test(target.uri ?? target.host)) return;
        hits.push({
          file: pass.file,
          line: pass.line,
          directive: pass,
          what: `proxy_pass ${arg} after rewrite ^ $request_uri (line ${rawPath.line}) escapes the raw path again: /a%2Fb arrives as /a%252Fb`,
        });
        return;
      }
      const location = chain[at] as NginxDirective;
      const { modifier, path } = locationMatch(location);
      if (modifier !== '' && modifier !== '^~') return;
      if (target.hasVariables || target.uri !== path || childrenNamed(location, 'rewrite').length > 0) return;
      hits.push({
        file: pass.file,
        line: pass.line,
        directive: pass,
        what: `proxy_pass ${arg} in location ${path}: the URI part repeats the location, so it changes no path but sends the decoded one (/a%2Fb arrives as /a/b)`,
        // Harmless to most apps (they decode the path themselves): advice, not a defect.
        severity: 'note',
      });
    });
    return hits;
  },
};
