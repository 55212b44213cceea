import {
  childrenNamed,
  effectiveDirective,
  findBlocks,
  isHttpScope,
  listLocations,
  listServers,
  loopbackOnly,
  type ScopeChain,
} from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import { admits, effectiveAccessList, EVERYONE } from '../access-lists.js';
import { describeBlock, isInternalLocation } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';
import { defaultValue, definitionInEffect, gateVariable, truthy } from '../variable-definitions.js';

/** Blocks whose `allow`/`deny` lines form one access list (nginx's access module contexts). */
const ACCESS_BLOCKS = ['http', 'server', 'location', 'limit_except'];

/** Authentication that is in effect at the end of `chain` (`auth_basic off` switches it off). */
function authInEffect(chain: ScopeChain): boolean {
  const basic = effectiveDirective(chain, 'auth_basic');
  return (
    (basic !== undefined && (basic.args[0] ?? 'off') !== 'off') ||
    (effectiveDirective(chain, 'auth_request')?.args[0] ?? 'off') !== 'off'
  );
}

/** `satisfy any` with authentication: clients outside the allow list must log in instead, by design. */
function allowOrLogin(chain: ScopeChain): boolean {
  return (effectiveDirective(chain, 'satisfy')?.args[0] ?? 'all') === 'any' && authInEffect(chain);
}

function accessBlocks(config: NginxConfig): Array<{ block: NginxDirective; chain: ScopeChain }> {
  return ACCESS_BLOCKS.flatMap((name) => findBlocks(config, name)).filter(isHttpScope);
}

/** gixy's allow_without_deny: without a `deny`, everybody not listed is allowed anyway. */
export const ALLOW_WITHOUT_DENY: LintRule = {
  id: 'allow-without-deny',
  severity: 'error',
  title: 'allow without deny',
  message:
    'nginx allows every request no rule denies: `allow 10.0.0.0/8;` on its own restricts nothing, so the block meant for the office network or the monitoring host is open to the internet.',
  fix: 'end the list with deny all; (allow 10.0.0.0/8; deny all;)',
  runbook: RUNBOOKS.accessLists,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const { block, chain } of accessBlocks(config)) {
      const allows = childrenNamed(block, 'allow');
      // An explicit `allow all;` opens the block on purpose (an add-on's "accessible" option).
      if (allows.some((d) => EVERYONE.has(d.args[0] ?? ''))) continue;
      const first = allows[0];
      if (!first || childrenNamed(block, 'deny').length > 0 || allowOrLogin(chain)) continue;
      // With `satisfy all` (the default) a login in effect still stops everyone without one (401,
      // shown live in error-audit-live.test.ts): the list restricts nothing, but the block is not open.
      const login = authInEffect(chain);
      hits.push({
        file: first.file,
        line: first.line,
        what: `${describeBlock(block)} allows ${allows.map((d) => d.args[0] ?? '').join(', ')} but denies nobody${login ? ' (the login in effect still applies to everyone)' : ''}`,
        ...(login ? { severity: 'warning' as const } : {}),
      });
    }
    return hits;
  },
};

/**
 * `return`/redirecting `rewrite` under a block, skipping locations a client cannot reach itself.
 * `names` are the server_name values of the server the block is in (none above a server).
 */
function earlyResponses(block: NginxDirective, names: readonly string[]): NginxDirective[] {
  const out: NginxDirective[] = [];
  for (const child of block.children ?? []) {
    if (child.children) {
      // A block with an access list of its own replaces this one there: it is checked on its own.
      if (!isInternalLocation(child) && !hasAccessList(child))
        out.push(...earlyResponses(child, child.name === 'server' ? serverNames(child) : names));
      continue;
    }
    if (child.name === 'return' && !refuses(child) && !toHttpsOfSameHost(child.args.at(-1), names))
      out.push(child);
    if (child.name === 'rewrite' && redirects(child) && !toHttpsOfSameHost(child.args[1], names))
      out.push(child);
  }
  return out;
}

function serverNames(server: NginxDirective | undefined): string[] {
  return server ? childrenNamed(server, 'server_name').flatMap((d) => d.args) : [];
}

/**
 * A `rewrite` that answers with a redirect: flag redirect/permanent, or a replacement that is an
 * absolute URL (nginx redirects at once even with `last`; its prefix check is case-sensitive).
 */
function redirects(rewrite: NginxDirective): boolean {
  return (
    ['redirect', 'permanent'].includes(rewrite.args[2] ?? '') ||
    /^(https?:\/\/|\$scheme)/.test(rewrite.args[1] ?? '')
  );
}

/**
 * A redirect of the request's own URL to HTTPS on the same host (`return 301
 * https://$host$request_uri;`, or the server's own name written out, `rewrite ^
 * https://a.example$request_uri? redirect;`) gives away nothing but the URL the client asked for:
 * what the access list guards is served, or refused, there.
 */
function toHttpsOfSameHost(target: string | undefined, names: readonly string[]): boolean {
  const url =
    /^https:\/\/([^/$]+|\$\{?(?:host|server_name|http_host)\}?)(\$\{?request_uri\}?|\$\{?uri\}?(\$\{?is_args\}?\$\{?args\}?)?)?\??$/.exec(
      target ?? '',
    );
  return url !== null && (url[1]!.startsWith('$') || names.includes(url[1]!.toLowerCase()));
}

function hasAccessList(block: NginxDirective): boolean {
  return (block.children ?? []).some((d) => d.name === 'allow' || d.name === 'deny');
}

/** `return 403` (any 4xx/5xx) answers with an error: it bypasses the access list but grants nothing. */
function refuses(ret: NginxDirective): boolean {
  const code = Number(ret.args[0]);
  return Number.isInteger(code) && code >= 400;
}

/** gixy-ng's return_bypasses_allow_deny: the rewrite phase runs before the access phase. */
export const RETURN_BYPASSES_ALLOW_DENY: LintRule = {
  id: 'return-bypasses-allow-deny',
  severity: 'error',
  title: 'return answers before allow/deny is checked',
  message:
    "return and rewrite … redirect|permanent answer in nginx's rewrite phase, which runs before the access phase where allow/deny are checked: every client gets that response (a health page, a redirect with a token, a body), whatever the access list says.",
  fix: 'move the response where the access list still applies: try_files /dev/null @answer; with location @answer { return …; }, or check the address in a map/geo and return 403 first',
  runbook: RUNBOOKS.accessLists,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const { block, chain } of accessBlocks(config)) {
      // Only a list that denies someone can be bypassed.
      const first = childrenNamed(block, 'deny')[0];
      if (!first) continue;
      for (const response of earlyResponses(block, serverNames(chain.findLast((b) => b.name === 'server'))))
        hits.push({
          file: response.file,
          line: response.line,
          what: `${response.name} ${response.args.join(' ')} answers before the deny of ${describeBlock(block)} at ${first.file}:${first.line} is checked`,
        });
    }
    return hits;
  },
};

/** Directives that turn a location into a status or management page. */
const STATUS_HANDLERS = new Set(['stub_status', 'status', 'api', 'vhost_traffic_status_display']);

/** nginx's variables whose value the request chooses. */
const CLIENT_SET_VARIABLE =
  /^(?:arg_|http_|cookie_|sent_http_)|^(?:args|query_string|request_uri|uri|document_uri|request|request_method|request_body|content_type|content_length|host|invalid_referer|is_args|remote_user)$/;

/**
 * The access gates in front of a status page, `if ($var) { return 404; }` in its location or in its
 * server (an outer location's rewrite directives do not run for a nested one). A gate holds unless
 * the geo or map of its variable can be read and lets in whom it does not list (no default, or
 * `default 0;`): then it only turns the listed addresses away, and the hit says so.
 */
function accessGate(
  config: NginxConfig,
  block: NginxDirective,
  chain: ScopeChain,
): { holds: true } | { holds: false; what: string } | undefined {
  const server = chain.findLast((b) => b.name === 'server');
  const levels = server && server !== block ? [server, block] : [block];
  const gates = levels.flatMap((level) => childrenNamed(level, 'if').filter((d) => gateVariable(d)));
  let open: string | undefined;
  for (const gate of gates) {
    const name = gateVariable(gate) as string;
    const definition = definitionInEffect(config, name);
    // A variable the request sets ($arg_hide, $http_x_debug, $cookie_…, $invalid_referer) is a gate
    // the client opens by leaving it out.
    if (!definition && CLIENT_SET_VARIABLE.test(name)) {
      open ??= `if ($${name}) refuses only requests that set $${name}: a client that leaves it out sees the page`;
      continue;
    }
    if (!definition || !['map', 'geo'].includes(definition.name) || truthy(defaultValue(definition)))
      return { holds: true };
    open ??= `if ($${name}) refuses only what ${definition.name} $${name} (${definition.file}:${definition.line}) lists: its default "${defaultValue(definition)}" lets everyone else in`;
  }
  return open === undefined ? undefined : { holds: false, what: open };
}

/** gixy-ng's status_page_exposed: connection counts and (with `api`) write access for anyone. */
export const STATUS_PAGE_EXPOSED: LintRule = {
  id: 'status-page-exposed',
  severity: 'warning',
  title: 'status page open to everyone',
  message:
    'stub_status (and the status/api pages of NGINX Plus) show connection and request counts to anyone who finds the URL; the api page can even change upstreams. Attackers use the counts to time and size their load.',
  fix: 'allow the monitoring hosts, then deny all; (or serve it on a loopback-only listen, behind auth_basic, or behind if ($hide_status) { return 404; } with geo $hide_status { default 1; 10.0.0.5 0; })',
  runbook: RUNBOOKS.accessLists,
  test: (config) => {
    const hits: RuleHit[] = [];
    const scopes = [...listServers(config), ...listLocations(config)];
    for (const { block, chain } of scopes) {
      if (isInternalLocation(block)) continue;
      const handler = (block.children ?? []).find((d) => STATUS_HANDLERS.has(d.name));
      if (!handler) continue;
      if (loopbackOnly(chain.find((b) => b.name === 'server'))) continue;
      const who = admits(effectiveAccessList(chain));
      // With `satisfy any`, an access list that admits everyone makes the login optional.
      const anyOf = (effectiveDirective(chain, 'satisfy')?.args[0] ?? 'all') === 'any';
      const loginHolds = authInEffect(chain) && !(anyOf && who === 'everyone');
      const gate = accessGate(config, block, chain);
      if (who === 'listed' || loginHolds || gate?.holds) continue;
      const list =
        who === 'no-list'
          ? 'without an access list'
          : 'lets everyone in: no deny all before an allow of everyone';
      hits.push({
        file: handler.file,
        line: handler.line,
        what: `${handler.name} in ${describeBlock(block)}${gate ? `: ${gate.what}` : ` ${list}`}`,
      });
    }
    return hits;
  },
};
