import {
  childrenNamed,
  effectiveDirectives,
  listLocations,
  listServers,
  locationMatch,
  rawPathRewrite,
  walkDirectives,
} from '../../nginx-config/query.js';
import { canStartWith, modelPcre, mustStartWith } from '../../nginx-config/pcre/pcre-analysis.js';
import type { RegexNode } from '../../nginx-config/pcre/parse-pcre.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import { isInternalLocation, listProxiedLocations } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';
import { rewriteCaptures, sourcesIn } from '../variable-sources.js';

/** `$name` or `${name}` in an alias. */
const VARIABLE = /\$(?:\{(\w+)\}|(\w+))/g;

/** Why an alias can leave its directory, and how far: a warning where the reach is bounded. */
interface AliasEscape {
  why: string;
  severity?: 'warning';
}

/**
 * Why an `alias` built from a regex location's captures can leave its directory, or undefined.
 * The capture replaces what the group matched: `location ~ ^/static(.*)$ { alias /srv/static/$1; }`
 * maps /static../etc/passwd to /srv/static/../etc/passwd, and `alias /srv/data$1` after `/data/(.*)`
 * reaches the sibling /srv/data-backup. A capture followed by a fixed path component (CSUA's
 * `alias /home/$1/public_html$2;`) reaches only paths ending in it: nginx decodes and normalises
 * the request path before matching (%2F, %2e%2e and /a/../.. are resolved, or answered 400), so
 * the capture holds no `/../` segment, and /~../x opens /home/../public_html/x (nginx 1.22, live).
 */
function regexAliasEscape(location: NginxDirective, alias: string): AliasEscape | undefined {
  const { modifier, path } = locationMatch(location);
  const pattern = modelPcre(path, modifier === '~*');
  if (!pattern) return undefined;
  const groupOf = (name: string) =>
    /^\d+$/.test(name) ? pattern.captures.get(Number(name)) : pattern.named.get(name.toLowerCase());
  let bounded: AliasEscape | undefined;
  let literalStart = 0;
  let previousEnd: number | undefined;
  for (const ref of alias.matchAll(VARIABLE)) {
    const group = groupOf((ref[1] ?? ref[2]) as string);
    const before = alias.slice(literalStart, ref.index);
    literalStart = ref.index + ref[0].length;
    const atStart = previousEnd === undefined && before === '';
    previousEnd = literalStart;
    if (!group) continue;
    if (atStart) return { why: `${ref[0]} starts the path: the request chooses the directory` };
    const slashInLocation = /\\?\/$/.test(path.slice(0, group.start)) || mustStartWith(group, '/');
    const slashInAlias = before.endsWith('/');
    if (!slashInLocation && slashInAlias && canStartWith(group, '.')) {
      const fixed = fixedComponent(alias.slice(literalStart), groupOf);
      if (!fixed) return { why: `${ref[0]} can start with ".." after the "/" of the alias` };
      bounded ??= {
        why: `${ref[0]} can start with "..", but the fixed "${fixed}" follows it: outside ${before} only paths ending in it are reachable`,
        severity: 'warning',
      };
      continue;
    }
    if (!slashInAlias && !mustStartWith(group, '/'))
      return { why: `${ref[0]} is glued to "${before}" without a "/": neighbouring names are reachable` };
  }
  return bounded;
}

/**
 * The fixed path component that `rest` (the alias after a capture) starts with (`/public_html`),
 * or undefined: a literal name, not `.` or `..`, ended by the alias's end, a `/`, or a capture that
 * must start with one (a variable glued to it would let the name run on: /public_html-old).
 */
function fixedComponent(rest: string, groupOf: (name: string) => RegexNode | undefined): string | undefined {
  const name = /^\/([^$/]+)/.exec(rest)?.[1];
  if (name === undefined || name === '.' || name === '..') return undefined;
  const after = rest.slice(name.length + 1);
  const next = new RegExp(`^${VARIABLE.source}`).exec(after);
  const group = next && groupOf((next[1] ?? next[2]) as string);
  return after === '' || after.startsWith('/') || (group && mustStartWith(group, '/'))
    ? `/${name}`
    : undefined;
}

/** gixy's alias_traversal: `location /static { alias /srv/static/; }` serves /static../secret. */
export const ALIAS_TRAVERSAL: LintRule = {
  id: 'alias-traversal',
  severity: 'error',
  title: 'alias path traversal',
  message:
    "nginx replaces the matched part of the path with the alias: a prefix location without a trailing slash whose alias ends with one lets /static../ map to the parent of the alias directory, and a regex location's capture placed after the alias's slash (or glued to a name) does the same. Files next to it (configs, keys, .git) can be read.",
  fix: 'end both with a slash: location /static/ { alias /srv/static/; } (or use root); in a regex location, put the slash inside the group or before it in both: location ~ ^/static/(.*)$ { alias /srv/static/$1; }',
  runbook: RUNBOOKS.pathTraversal,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const { block } of listLocations(config)) {
      // A client reaches an internal location only through the app (X-Accel-Redirect) or a rewrite,
      // try_files or error_page that carries its URI there: a warning, since that path may or may
      // not exist (Penpot's assets are named by its backend).
      const internal = isInternalLocation(block);
      const { modifier, path } = locationMatch(block);
      for (const alias of childrenNamed(block, 'alias')) {
        const target = alias.args[0] ?? '';
        if (modifier === '~' || modifier === '~*') {
          const escape = regexAliasEscape(block, target);
          if (escape)
            hits.push({
              file: alias.file,
              line: alias.line,
              directive: alias,
              what: `location ${modifier} ${path} with alias ${target}: ${escape.why}${internal ? ' (internal: reached through the app or a rewrite)' : ''}`,
              ...(internal
                ? { severity: 'warning' as const }
                : escape.severity
                  ? { severity: escape.severity }
                  : {}),
            });
          continue;
        }
        if ((modifier !== '' && modifier !== '^~') || path.endsWith('/')) continue;
        // A prefix that does not start with "/" never matches a URI (mailcow's `location (^/SOGo…)`,
        // a regex written without ~): nothing is served through it, let alone a parent directory.
        if (!path.startsWith('/')) continue;
        // Without a slash on either side only sibling names beginning like the alias are reachable
        // (Magento's `location /pub { alias $MAGE_ROOT/pub; }`): a warning, not a read of the parent.
        hits.push(
          target.endsWith('/')
            ? {
                file: alias.file,
                line: alias.line,
                directive: alias,
                what: `location ${path} with alias ${target} serves ${path}../ from the parent directory${internal ? ' (internal: reached through the app or a rewrite)' : ''}`,
                ...(internal ? { severity: 'warning' as const } : {}),
              }
            : {
                file: alias.file,
                line: alias.line,
                directive: alias,
                what: `location ${path} with alias ${target} serves ${path}-old/ from ${target}-old/ (any name starting with ${target})`,
                severity: 'warning',
              },
        );
      }
    }
    return hits;
  },
};

/** gixy's host_spoofing: the Host sent upstream must be one nginx matched, not one the client wrote. */
export const HOST_HEADER_SPOOFABLE: LintRule = {
  id: 'host-header-spoofable',
  severity: 'warning',
  title: 'Host forwarded from a client-controlled value',
  message:
    "$http_host is the raw client Host header, forwarded even when it matches no server_name (default server); $http_x_forwarded_host, $arg_*, $cookie_* and other request values are the client's to choose outright: the app builds links, password-reset mails and cache keys from an attacker-chosen host.",
  fix: 'proxy_set_header Host $host; (or a map that passes the client value only when an anchored regex of your own names matches it)',
  runbook: RUNBOOKS.originChecks,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      if (d.name !== 'proxy_set_header' || (d.args[0] ?? '').toLowerCase() !== 'host') return;
      // $host is the fix: the matched server name, or the Host header nginx validated.
      const spoofable = sourcesIn(d.args[1] ?? '', { directive: d, chain }, config).find(
        (source) => source.client && source.origin !== 'host',
      );
      if (spoofable)
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `proxy_set_header Host ${d.args[1] ?? ''}${spoofable.what === d.args[1] ? '' : ` (from ${spoofable.what})`}`,
        });
    });
    return hits;
  },
};

/** nginx writes `return`'s argument into Location only for these statuses (else it is the body). */
const REDIRECT_STATUSES = new Set(['301', '302', '303', '307', '308']);
const ABSOLUTE_URL = /^(https?:\/\/|\$scheme)/;

/**
 * The value a directive writes into a response header or the upstream request, and whether it goes
 * upstream (server side: only a line feed splits there) or to the client (a lone CR splits too).
 */
function writtenValue(d: NginxDirective): { value: string; upstream: boolean } | undefined {
  const [first = '', second] = d.args;
  switch (d.name) {
    case 'proxy_pass':
      return { value: first, upstream: true };
    case 'proxy_set_header':
      return second === undefined ? undefined : { value: second, upstream: true };
    case 'add_header':
      return second === undefined ? undefined : { value: second, upstream: false };
    case 'return':
      if (second === undefined)
        return ABSOLUTE_URL.test(first) ? { value: first, upstream: false } : undefined;
      return REDIRECT_STATUSES.has(first) ? { value: second, upstream: false } : undefined;
    case 'rewrite': {
      const redirects =
        ['redirect', 'permanent'].includes(d.args[2] ?? '') || ABSOLUTE_URL.test(second ?? '');
      // A redirect's own $1..$9 are escaped by nginx when the request path held escapes; the rest is not.
      return redirects
        ? { value: (second ?? '').replace(/\$(\d|\{\d+\})/g, ''), upstream: false }
        : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * A server- or http-level proxy_set_header or add_header that no request gets: every location
 * below it that could send it (for proxy_set_header, one that proxies) sets its own lines of that
 * name, which replace all outer ones (a later `proxy_set_header X-Uri $request_uri;` in the
 * location drops the server's `X-Uri $uri`), and for add_header a catch-all `location /` leaves no
 * request to the level itself, nor does it answer with a `return`, `rewrite` or `if` of its own. Shown on nginx 1.22
 * in error-audit-live.test.ts.
 */
function neverSent(d: NginxDirective, chain: NginxDirective[], config: NginxConfig): boolean {
  if (d.name !== 'proxy_set_header' && d.name !== 'add_header') return false;
  const level = chain.at(-1);
  if (!level || (level.name !== 'server' && level.name !== 'http')) return false;
  const below = listLocations(config).filter((l) => l.chain.includes(level));
  if (below.length === 0) return false;
  if (d.name === 'proxy_set_header')
    return !listProxiedLocations(config).some(
      (l) => l.chain.includes(level) && effectiveDirectives(l.chain, d.name).includes(d),
    );
  const servers =
    level.name === 'server'
      ? [level]
      : listServers(config)
          .filter((s) => s.chain.includes(level))
          .map((s) => s.block);
  const answeredAbove = servers.some(
    (server) =>
      // A server-level return, redirecting rewrite or if answers with the server's own headers.
      ['return', 'rewrite', 'if'].some((name) => childrenNamed(server, name).length > 0) ||
      !childrenNamed(server, 'location').some((l) => {
        const { modifier, path } = locationMatch(l);
        return modifier === '' && path === '/';
      }),
  );
  return !answeredAbove && !below.some((l) => effectiveDirectives(l.chain, d.name).includes(d));
}

/**
 * gixy's http_splitting: $uri, $document_uri and regex captures of the path are percent-decoded, so
 * %0d%0a in a request becomes a real line break in a header or in the upstream request.
 */
export const HTTP_SPLITTING: LintRule = {
  id: 'http-splitting',
  severity: 'error',
  title: 'decoded path written into a header or upstream request',
  message:
    '$uri, $document_uri and captures of a regex matched against the path are percent-decoded: a request for /x%0d%0aSet-Cookie:a=b writes a line break into the Location or another response header, or into the request sent upstream (header injection, response splitting). A capture only holds what its group matches, so [^/]*, \\s, \\W and . (a CR) let it through.',
  fix: 'use $request_uri (kept encoded), or narrow the group to the characters a path segment needs ([A-Za-z0-9._-]+); in a map, anchor the guarding regex at both ends',
  runbook: RUNBOOKS.headerInjection,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      const written = writtenValue(d);
      if (!written) return;
      const captures = d.name === 'rewrite' ? rewriteCaptures(d) : undefined;
      const raw = rawPathRewrite(d, chain) !== undefined;
      const breaking = sourcesIn(written.value, { directive: d, chain }, config, captures).find(
        (source) =>
          !(raw && (source.origin === 'uri' || source.origin === 'document_uri')) &&
          (source.mayHold('\n') || (!written.upstream && source.mayHold('\r'))),
      );
      // Asked only of a finding: it walks the locations below the level.
      if (!breaking || neverSent(d, chain, config)) return;
      // A lone CR (what `.` and `(.*)` let through: PCRE's `.` stops at LF) splits the header only
      // for some clients: Python's http.client reads a header after it, Node's parser refuses the
      // response (both shown on nginx 1.22 in error-audit-live.test.ts), so the harm depends on
      // the client: a warning. A line feed splits it for every client: an error.
      const lineFeed = breaking.mayHold('\n');
      hits.push({
        file: d.file,
        line: d.line,
        directive: d,
        what: `${d.name} ${d.args.join(' ')}: ${breaking.what} can hold a ${lineFeed ? 'line break' : 'carriage return (CR), not a line feed'}`,
        ...(lineFeed ? {} : { severity: 'warning' as const }),
      });
    });
    return hits;
  },
};
