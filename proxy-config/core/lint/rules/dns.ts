import { passDirective } from '../../nginx-config/pass-directives.js';
import delegatedTlds from 'tlds' with { type: 'json' };
import { parseProxyPassTarget } from '../../nginx-config/proxy-pass-target.js';
import {
  childrenNamed,
  includesMissingFile,
  isHttpScope,
  isMainConfig,
  listUpstreams,
  listUpstreamScopes,
  resolverInEffect,
  walkDirectives,
  type ScopeChain,
} from '../../nginx-config/query.js';
import type { NginxConfig } from '../../nginx-config/types.js';
import { NGINX_VERSION_CHANGES } from '../../nginx-config/version-changes.js';
import { predates } from '../../nginx-config/version-support.js';
import { unusedUpstreams } from '../proxied-locations.js';
import type { LintRule, RuleHit } from '../types.js';

const DELEGATED_TLDS: ReadonlySet<string> = new Set(delegatedTlds);

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** Loopback, private (RFC 1918), link-local (cloud VPC resolvers such as 169.254.169.253) and CGNAT. */
function isLocalIpv4(address: string): boolean {
  const m = IPV4.exec(address);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return (
    a === 127 ||
    a === 10 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) ||
    (a === 100 && b >= 64 && b <= 127)
  );
}

/** Loopback, link-local (fe80::/10) and unique local (fc00::/7). */
function isLocalIpv6(address: string): boolean {
  const a = address.toLowerCase();
  return a === '::1' || /^fe[89ab][0-9a-f]?:/.test(a) || /^f[cd][0-9a-f]{0,2}:/.test(a);
}

/** The host part of `host`, `host:port`, `[v6]` or `[v6]:port`. */
export function hostOf(address: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(address);
  if (bracketed) return bracketed[1] as string;
  if ((address.match(/:/g) ?? []).length > 1) return address; // a bare IPv6 address
  return address.split(':')[0] as string;
}

const isIpLiteral = (host: string) => IPV4.test(host) || host.includes(':');

/**
 * A resolver named by a name that only a private network can answer: a single label, a name under
 * home.arpa (RFC 8375), or a name whose top-level domain is not delegated in the root zone
 * (.internal, .local, .localhost, .lan, .corp, or a made-up one such as .osa): public DNS cannot
 * answer for it, so /etc/hosts or an internal nameserver does. `tlds` is IANA's list of delegated
 * TLDs; an IDN TLD in its xn-- spelling is not in it and is taken as public.
 */
function privateName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  const labels = name.split('.');
  const tld = labels[labels.length - 1] as string;
  if (labels.length === 1 || /(?:^|\.)home\.arpa$/.test(name)) return true;
  return !tld.startsWith('xn--') && !DELEGATED_TLDS.has(tld);
}

/** gixy's resolver_external: a resolver across the internet can be answered by anyone on the path. */
export const RESOLVER_EXTERNAL: LintRule = {
  id: 'resolver-external',
  severity: 'warning',
  title: 'resolver outside the host or private network',
  message:
    "nginx's resolver is a plain UDP stub without DNSSEC and with a guessable transaction id: a public nameserver (8.8.8.8, 1.1.1.1, a hostname) lets anyone who can spoof or race its answers across the internet poison the cache and point proxy_pass at their own server.",
  fix: 'resolver 127.0.0.53 (or the local/VPC resolver: 10.x, 169.254.169.253, [::1]) valid=30s;',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (d.name !== 'resolver') return;
      const external = d.args
        .filter((arg) => !arg.includes('='))
        .filter((arg) => {
          const host = hostOf(arg);
          if (IPV4.test(host)) return !isLocalIpv4(host);
          return host.includes(':') ? !isLocalIpv6(host) : !privateName(host);
        });
      if (external.length > 0)
        hits.push({
          file: d.file,
          line: d.line,
          directive: d,
          what: `resolver ${external.join(' ')}: ${external.length > 1 ? 'nameservers' : 'a nameserver'} outside this host and its private network`,
        });
    });
    return hits;
  },
};

/** The values a variable is given in plain text: `set $v …` along the chain, or a `map`'s values. */
function spelledOutValues(config: NginxConfig, chain: ScopeChain, name: string): string[] {
  const values = chain.flatMap((block) =>
    childrenNamed(block, 'set')
      .filter((d) => d.args[0] === `$${name}`)
      .map((d) => d.args[1] ?? ''),
  );
  walkDirectives(config, (d) => {
    if (d.name === 'map' && d.args[1] === `$${name}`)
      for (const entry of d.entries ?? []) if (entry.args[0] !== undefined) values.push(entry.args[0]);
  });
  return values.filter((v) => !v.includes('$'));
}

/** Names that never change address: localhost (RFC 6761) and its subdomains. */
const isLocalhost = (host: string) => /^(?:localhost|ip6-localhost|.+\.localhost)\.?$/i.test(host);

/** A pass's address as a URL: fastcgi_pass and scgi_pass (and uwsgi_pass, grpc_pass may) write none. */
const asUrl = (value: string) => (/^[a-z]+:\/\//i.test(value) ? value : `x://${value}`);

/**
 * What a `proxy_pass` (or `fastcgi_pass`, `uwsgi_pass`, `scgi_pass`, `grpc_pass`) resolves and
 * when. A target with variables is resolved per request, through `resolver` only (an upstream
 * group of that name aside): a host spelled out in the target or in the variable's `set`/`map`
 * value, with no resolver in effect, fails every request (502). A target without variables names
 * a host that nginx resolves once, when it starts.
 */
function passHits(config: NginxConfig): RuleHit[] {
  const upstreams = listUpstreams(config);
  const hits: RuleHit[] = [];
  walkDirectives(config, (pass, chain) => {
    // The passes whose address nginx resolves as proxy_pass does: once at start, or per request with variables.
    const kind = passDirective(pass.name);
    if (!kind?.variables || !isHttpScope({ block: pass, chain })) return;
    const arg = pass.args[0] ?? '';
    if (!arg.includes('$')) {
      const written = parseProxyPassTarget(pass.name === 'proxy_pass' ? arg : asUrl(arg))?.host ?? '';
      if (!written || written.startsWith('unix:')) return;
      // FastCGI, uwsgi, SCGI and gRPC have no default port: a name without one is a group, or refused.
      if (!kind.defaultPort && written === hostOf(written)) return;
      const host = hostOf(written);
      // upstream-undefined's case: a single word may be a group, defined here or, in a snippet, in the
      // files that include it; a snippet's `app:3000` is a host (nginx refuses a port on a group).
      const groupName =
        !host.includes('.') && (upstreams.size > 0 || (!isMainConfig(config) && written === host));
      if (isIpLiteral(host) || isLocalhost(host)) return;
      if (upstreams.has(host) || groupName) return;
      hits.push({
        file: pass.file,
        line: pass.line,
        directive: pass,
        what: `${pass.name} ${arg}: ${host} is resolved once, when nginx starts`,
      });
      return;
    }
    if (resolverInEffect(config, chain)) return;
    const url = pass.name === 'proxy_pass' ? arg : asUrl(arg);
    const whole = /^\$\{?(\w+)\}?$/.exec(arg);
    const inHost = /^[a-z]+:\/\/\$\{?(\w+)\}?(?::\d+)?(?:\/.*)?$/i.exec(url);
    const variable = whole?.[1] ?? inHost?.[1];
    const head = /^[a-z]+:\/\/([^$/]+)([/$]|$)/i.exec(url);
    const literal = head?.[1];
    // `http://backend-$behost/` (Netdata's sample): a prefix, not a host; with upstream groups that
    // start with it, nginx takes the group of that name and needs no resolver.
    if (literal && head?.[2] === '$' && [...upstreams.keys()].some((name) => name.startsWith(literal)))
      return;
    const hosts = variable
      ? spelledOutValues(config, chain, variable).flatMap((value) => {
          const host = whole
            ? parseProxyPassTarget(pass.name === 'proxy_pass' ? value : asUrl(value))?.host
            : value.split('/')[0];
          return host && !host.startsWith('unix:') ? [hostOf(host)] : [];
        })
      : literal && !literal.startsWith('unix:')
        ? [hostOf(literal)]
        : [];
    const named = hosts.find((host) => !isIpLiteral(host) && !upstreams.has(host));
    if (named)
      hits.push({
        file: pass.file,
        line: pass.line,
        directive: pass,
        what: `${pass.name} ${arg} resolves ${named} per request, but no resolver is set: nginx cannot resolve it and answers 502`,
      });
  });
  return hits;
}

/** gixy's stale_dns_cache, for upstream groups: names are resolved when nginx starts, never again. */
export const UPSTREAM_DNS_STALE: LintRule = {
  id: 'upstream-dns-stale',
  severity: 'warning',
  title: 'upstream hostname resolved only at start, or with no resolver',
  message:
    "nginx resolves the hostnames of an upstream group once, when it starts or reloads, and keeps those addresses until the next reload: after a deploy, failover or autoscaling changes the DNS record, requests keep going to the old addresses (502/504, or another tenant's host). `localhost` also resolves to every address in /etc/hosts (::1 and 127.0.0.1), so half the attempts may hit an address the app does not listen on. proxy_pass (fastcgi_pass, uwsgi_pass, scgi_pass, grpc_pass) straight to a host name is resolved once the same way. One through a variable holding a name is resolved per request, but only through `resolver`: without one, every request fails.",
  fix: 'write IP addresses; or, on nginx ≥ 1.27.3, `server name:port resolve;` with a `resolver` and a `zone` in the upstream; or proxy_pass through a variable (set $app http://name:port; proxy_pass $app;) with a resolver in effect',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = passHits(config);
    // A group nothing sends to keeps its stale addresses harmlessly.
    const unused = unusedUpstreams(config);
    for (const { block } of listUpstreamScopes(config)) {
      if (unused.has(block)) continue;
      for (const server of (block.children ?? []).filter((c) => c.name === 'server')) {
        const address = server.args[0] ?? '';
        if (address.startsWith('unix:')) continue;
        // nginx takes no variables here: `${PEERTUBE_HOST}` is an envsubst template's placeholder.
        if (address.includes('$')) {
          hits.push({
            file: server.file,
            line: server.line,
            directive: server,
            what: `upstream ${block.args[0] ?? ''}: server ${address} is an unsubstituted template placeholder (an upstream server takes no variables): lint the rendered file`,
          });
          continue;
        }
        const host = hostOf(address);
        if (isIpLiteral(host)) continue;
        // Re-resolved while nginx runs (or refused: upstream-resolve-refused, directive-not-in-version).
        if (server.args.includes('resolve')) continue;
        hits.push({
          file: server.file,
          line: server.line,
          directive: server,
          what: `upstream ${block.args[0] ?? ''}: server ${address} is resolved once, when nginx starts`,
        });
      }
    }
    return hits;
  },
};

/** The release that brought `server … resolve` in an http upstream (before it, directive-not-in-version's). */
const RESOLVE_PARAMETER = NGINX_VERSION_CHANGES.find(
  (row) => row.kind === 'parameter' && row.parameter === 'resolve' && row.context === 'upstream',
);

/**
 * nginx's checks of an upstream with `server … resolve` (ngx_http_upstream_init_round_robin in
 * src/http/ngx_http_upstream_round_robin.c, release-1.31.4): without a `zone` the group is not in
 * shared memory and nginx fails to start ("resolving names at run time requires upstream … to be in
 * shared memory"); with one, it needs a resolver in the upstream or at http level (a server's does
 * not count: the check reads the http level's, and an upstream sits outside every server) or it fails with "no resolver defined to resolve
 * names at run time in upstream …". Both are emerg: nginx -t fails and a reload keeps the old config.
 */
export const UPSTREAM_RESOLVE_REFUSED: LintRule = {
  id: 'upstream-resolve-refused',
  severity: 'error',
  title: 'server … resolve without a zone or a resolver',
  message:
    'nginx resolves an upstream server marked `resolve` while it runs, and keeps the answers in the group\'s shared memory: it refuses to start without a `zone` in the upstream ("resolving names at run time requires upstream … to be in shared memory") and without a `resolver` in the upstream or at http level ("no resolver defined to resolve names at run time in upstream …"), as nginx\'s src/http/ngx_http_upstream_round_robin.c checks (ngx_http_upstream_init_round_robin). nginx -t fails and a reload keeps the old config.',
  fix: 'zone app 64k; and resolver 127.0.0.53 valid=30s; in the upstream (or the resolver at http level)',
  runbook: null,
  test: (config, nginx) => {
    // Before 1.27.3 the parameter itself is refused: directive-not-in-version says so.
    if (!RESOLVE_PARAMETER || predates(nginx, RESOLVE_PARAMETER)) return [];
    const hits: RuleHit[] = [];
    for (const { block, chain } of listUpstreamScopes(config)) {
      const server = (block.children ?? []).find((c) => c.name === 'server' && c.args.includes('resolve'));
      // A file that was not found may hold the zone or the resolver: include-missing says so.
      if (!server || includesMissingFile(chain)) continue;
      const name = `upstream "${block.args[0] ?? ''}"`;
      const at = { file: server.file, line: server.line, directive: server };
      if (childrenNamed(block, 'zone').length === 0)
        hits.push({
          ...at,
          what: `server ${server.args.join(' ')}: ${name} has no zone, and nginx refuses to start ("resolving names at run time requires ${name} … to be in shared memory", nginx's src/http/ngx_http_upstream_round_robin.c:130 at release-1.31.4)`,
        });
      // A snippet's http level is in the file that includes it, which may set the resolver.
      else if (isMainConfig(config) && !chain.some((level) => childrenNamed(level, 'resolver').length > 0))
        hits.push({
          ...at,
          what: `server ${server.args.join(' ')}: no resolver in ${name} or at http level, and nginx refuses to start ("no resolver defined to resolve names at run time in ${name}", nginx's src/http/ngx_http_upstream_round_robin.c:121 at release-1.31.4)`,
        });
    }
    return hits;
  },
};
