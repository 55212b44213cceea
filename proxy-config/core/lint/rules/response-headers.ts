import { childrenNamed, effectiveDirectives, rootBlock, walkDirectives } from '../../nginx-config/query.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';

/** The header values a header-setting directive writes (headers-more's options and their values skipped). */
function headerValues(d: NginxDirective): Array<{ name: string; value: string }> {
  if (d.name === 'add_header' || d.name === 'add_trailer')
    return d.args.length >= 2 ? [{ name: d.args[0] ?? '', value: d.args[1] ?? '' }] : [];
  if (d.name !== 'more_set_headers') return [];
  const out: Array<{ name: string; value: string }> = [];
  for (let i = 0; i < d.args.length; i++) {
    const arg = d.args[i] ?? '';
    if (arg === '-s' || arg === '-t') i++;
    else if (!arg.startsWith('-')) {
      const colon = arg.indexOf(':');
      out.push(
        colon === -1
          ? { name: arg, value: '' }
          : // Only blanks after the colon are padding: a line break there is part of the value.
            { name: arg.slice(0, colon).trim(), value: arg.slice(colon + 1).replace(/^[ \t]+/, '') },
      );
    }
  }
  return out;
}

/** gixy's add_header_multiline: a quoted value that spans lines is sent with the line breaks in it. */
export const ADD_HEADER_MULTILINE: LintRule = {
  id: 'add-header-multiline',
  severity: 'error',
  title: 'header value spans several lines',
  message:
    'nginx sends a quoted value that spans lines verbatim, line breaks included: HTTP/1.1 clients see a folded or truncated header (obsolete line folding, RFC 9112), and HTTP/2 and HTTP/3 clients must reject the whole response as malformed.',
  fix: 'write the value on one line (a long Content-Security-Policy too), or build it with map/set from short pieces',
  runbook: RUNBOOKS.headerInjection,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      const broken = headerValues(d).find((h) => /[\r\n]/.test(h.value));
      if (broken)
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `${d.name} ${broken.name}: its value holds a line break`,
        });
    });
    return hits;
  },
};

const HIDE_HEADER = ['proxy', 'fastcgi', 'uwsgi', 'scgi', 'grpc'].map((m) => `${m}_hide_header`);

/** gixy's add_header_content_type: add_header appends a second Content-Type next to nginx's own. */
export const ADD_HEADER_CONTENT_TYPE: LintRule = {
  id: 'add-header-content-type',
  severity: 'warning',
  title: 'Content-Type set with add_header',
  message:
    'add_header does not replace the Content-Type nginx already sends (from types/default_type or the upstream): the response carries two Content-Type headers, and browsers pick either one, or sniff.',
  fix: 'default_type text/plain; (or a types { } block in the location); for proxied responses proxy_hide_header Content-Type first',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      if (d.name !== 'add_header') return;
      const header = headerValues(d)[0];
      if (header?.name.toLowerCase() !== 'content-type') return;
      // nginx sends a 204 without a Content-Type of its own (the CORS preflight answer).
      const block = chain.at(-1);
      if (block && childrenNamed(block, 'return').some((r) => r.args[0] === '204')) return;
      // The upstream's own Content-Type hidden first (proxy_, fastcgi_, uwsgi_, scgi_ or
      // grpc_hide_header): then add_header is the only one.
      const hidden = HIDE_HEADER.some((name) =>
        effectiveDirectives(chain, name).some((h) => (h.args[0] ?? '').toLowerCase() === 'content-type'),
      );
      if (!hidden)
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `add_header Content-Type ${header.value} (use default_type ${header.value})`,
        });
    });
    return hits;
  },
};

/** Headers only a response carries: set on the request to the upstream, no browser ever sees them. */
const RESPONSE_ONLY_HEADERS = new Set([
  'x-frame-options',
  'strict-transport-security',
  'content-security-policy',
  'content-security-policy-report-only',
  'x-content-type-options',
  'x-xss-protection',
  'referrer-policy',
  'permissions-policy',
  'cross-origin-opener-policy',
  'cross-origin-embedder-policy',
  'cross-origin-resource-policy',
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-allow-credentials',
  'access-control-expose-headers',
  'access-control-max-age',
  'set-cookie',
]);

/** A response header given to proxy_set_header (GitLab's sample sends X-Frame-Options upstream). */
export const PROXY_SET_HEADER_RESPONSE_ONLY: LintRule = {
  id: 'proxy-set-header-response-only',
  severity: 'warning',
  title: 'response header set on the request to the upstream',
  message:
    'proxy_set_header (and grpc_set_header) set headers of the request nginx sends to the upstream. X-Frame-Options, Strict-Transport-Security, Content-Security-Policy and the other response headers mean nothing there: the app ignores them and the browser never gets them, so the protection the line was written for is not in place.',
  fix: 'add_header X-Frame-Options SAMEORIGIN always; (a response header, in the same block) instead of proxy_set_header',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (d.name !== 'proxy_set_header' && d.name !== 'grpc_set_header') return;
      const name = d.args[0] ?? '';
      if (RESPONSE_ONLY_HEADERS.has(name.toLowerCase()))
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `${d.name} ${name}: a response header, sent to the upstream as part of the request; browsers never see it`,
        });
    });
    return hits;
  },
};

/**
 * One header set twice at one level: immich's sample sends `Host $host` twice. A warning even for
 * Host: whether a request fails depends on the upstream (nginx and Go answer 400, Node and Python
 * take the value; SWAG's qBittorrent sample works so).
 */
export const PROXY_SET_HEADER_DUPLICATE: LintRule = {
  id: 'proxy-set-header-duplicate',
  severity: 'warning',
  title: 'proxy_set_header sets one header twice',
  message:
    "nginx sends every proxy_set_header line of a level, so a header written twice there (or once more in an included proxy_params) goes to the upstream twice. Two Host headers break every request on an upstream that keeps to RFC 9112, which must refuse them: nginx answers 400 (client sent duplicate host header), and so does Go's net/http; lenient servers (Node, Python) read one. Another header sent twice reaches the app as two values, of which most frameworks read one — not always the one meant.",
  fix: 'keep one proxy_set_header line per header at each level: drop the repeat (or the line an included proxy_params already sets)',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    // Every level, the top one too (a location snippet linted on its own).
    const levels = [rootBlock(config)];
    walkDirectives(config, (d) => {
      if (d.children) levels.push(d);
    });
    for (const block of levels) {
      const first = new Map<string, NginxDirective>();
      // An empty value sends no header at all (nginx's way to remove one): it cannot repeat one.
      for (const d of childrenNamed(block, 'proxy_set_header').filter((h) => (h.args[1] ?? '') !== '')) {
        const name = (d.args[0] ?? '').toLowerCase();
        const earlier = first.get(name);
        if (!earlier) {
          first.set(name, d);
          continue;
        }
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `proxy_set_header ${d.args[0] ?? ''} again (first at ${earlier.file}:${earlier.line}): the upstream gets two ${d.args[0] ?? ''} headers${name === 'host' ? ' and an nginx or Go upstream answers 400' : ''}`,
        });
      }
    }
    return hits;
  },
};
