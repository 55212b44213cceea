import {
  childrenNamed,
  effectiveDirective,
  effectiveProxyHeaders,
  effectiveValue,
  isMainConfig,
  listServers,
  listUpstreamScopes,
  rootBlock,
  walkDirectives,
} from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import { connectionForPlainRequests } from '../../nginx-config/connection-header.js';
import { formatNginxTime, parseNginxTime } from '../../nginx-config/units.js';
import { describeBlock, listProxiedLocations, unusedUpstreams } from '../proxied-locations.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';
import { hasDefaultOf } from '../../nginx-config/version-support.js';

const WHY_502 =
  'Without upstream keep-alive every request opens a new connection: ephemeral ports run out in TIME_WAIT and the proxy answers 502 at busy hours.';

/** §4.7.6: upstream connections use keep-alive, which needs an `upstream {}` group with `keepalive`. */
export const UPSTREAM_KEEPALIVE_MISSING: LintRule = {
  id: 'upstream-keepalive-missing',
  severity: 'warning',
  title: 'upstream without keep-alive',
  message: WHY_502,
  fix: 'upstream NAME { server HOST:PORT; keepalive 32; } and proxy_pass http://NAME; (a bare proxy_pass address has no connection pool)',
  runbook: RUNBOOKS.keepAlive,
  test: (config, nginx) => {
    const hits: RuleHit[] = [];
    const proxied = proxiedUpstreams(config);
    const other = nonHttpUpstreamNames(config);
    const unused = unusedUpstreams(config);
    // From 1.29.7 an upstream group keeps 32 idle connections without a keepalive line (bare
    // proxy_pass addresses, implicit groups, still do not).
    const pooledByDefault = hasDefaultOf(nginx, 'keepalive');
    for (const { block } of listUpstreamScopes(config))
      if (
        !pooledByDefault &&
        childrenNamed(block, 'keepalive').length === 0 &&
        !unused.has(block) &&
        (proxied.has(block) || !other.has(block.args[0] ?? '')) &&
        // Unix sockets have no ephemeral ports to run out of (as for a bare proxy_pass below).
        !childrenNamed(block, 'server').every((s) => (s.args[0] ?? '').startsWith('unix:'))
      )
        hits.push({
          file: block.file,
          line: block.line,
          directive: block,
          what: `upstream ${block.args[0] ?? ''} has no keepalive`,
        });
    const main = isMainConfig(config);
    for (const { proxyPass, target, upstream } of listProxiedLocations(config)) {
      // A unix socket has no ephemeral ports to run out of; the 502-at-busy-hours mechanism is TCP's.
      if (!target || upstream || target.hasVariables || target.host.startsWith('unix:')) continue;
      if (!main && !looksLikeAddress(target.host, target.hasPort)) continue;
      hits.push({
        file: proxyPass.file,
        line: proxyPass.line,
        directive: proxyPass,
        what: `proxy_pass ${proxyPass.args[0] ?? ''} goes to a bare address with no keep-alive pool`,
      });
    }
    return hits;
  },
};

/** The upstream groups some proxy_pass sends to. */
function proxiedUpstreams(config: NginxConfig): Set<NginxDirective> {
  return new Set(listProxiedLocations(config).flatMap(({ upstream }) => (upstream ? [upstream] : [])));
}

/**
 * Names passed to by fastcgi_pass, uwsgi_pass or scgi_pass. A group used only by them (php-fpm,
 * uwsgi) is left alone: those protocols close the connection after each request unless the backend
 * and fastcgi_keep_conn agree otherwise, and php-fpm pools are sized for it.
 */
function nonHttpUpstreamNames(config: NginxConfig): Set<string> {
  const names = new Set<string>();
  walkDirectives(config, (d) => {
    if (d.name === 'fastcgi_pass' || d.name === 'uwsgi_pass' || d.name === 'scgi_pass')
      names.add((d.args[0] ?? '').replace(/^[a-z]+:\/\//, ''));
  });
  return names;
}

/** In a snippet the upstream group may be defined elsewhere; only an address is surely not one. */
function looksLikeAddress(host: string, hasPort: boolean): boolean {
  return hasPort || host === 'localhost' || /^[\d.]+$|^\[/.test(host);
}

/** Keep-alive to an upstream group also needs HTTP/1.1 and a cleared Connection header. */
export const UPSTREAM_KEEPALIVE_HEADERS: LintRule = {
  id: 'upstream-keepalive-headers',
  severity: 'warning',
  title: 'proxy_pass to an upstream without HTTP/1.1 and empty Connection',
  message: `nginx talks HTTP/1.0 with "Connection: close" to upstreams by default, so the upstream keepalive pool is never used. ${WHY_502}`,
  fix: 'proxy_http_version 1.1; proxy_set_header Connection ""; (for WebSockets: a map whose value for an empty $http_upgrade is "")',
  runbook: RUNBOOKS.keepAlive,
  test: (config, nginx) => {
    const hits: RuleHit[] = [];
    // From 1.29.7 groups pool by default, nginx speaks HTTP/1.1 to them and sends no Connection.
    const pooledByDefault = hasDefaultOf(nginx, 'keepalive');
    const keepsAliveByDefault = hasDefaultOf(nginx, 'proxy_http_version');
    for (const { block, chain, proxyPass, upstream } of listProxiedLocations(config)) {
      // A group without keepalive has no pool to waste: upstream-keepalive-missing says it once.
      if (!upstream || (!pooledByDefault && childrenNamed(upstream, 'keepalive').length === 0)) continue;
      const problems: string[] = [];
      const version = effectiveValue(chain, 'proxy_http_version', keepsAliveByDefault ? '1.1' : '1.0');
      // HTTP/2 to the upstream (1.29.4 and later) multiplexes on kept connections too.
      if (version !== '1.1' && version !== '2') problems.push(`proxy_http_version is ${version}`);
      const connection = effectiveProxyHeaders(chain).get('connection');
      if (connection === undefined && !keepsAliveByDefault)
        problems.push('Connection is not cleared (nginx sends "close")');
      else if (connection !== undefined && !keepsAlive(connectionForPlainRequests(connection, config)))
        problems.push(`Connection is "${connection}" for plain requests`);
      if (problems.length > 0)
        hits.push({
          file: proxyPass.file,
          line: proxyPass.line,
          directive: proxyPass,
          what: `${describeBlock(block)} → upstream ${upstream.args[0] ?? ''}: ${problems.join('; ')}`,
        });
    }
    return hits;
  },
};

/**
 * The Connection value sent for a request without Upgrade keeps the connection open: over HTTP/1.1
 * only a `close` token ends it, so `Connection: Upgrade` on a plain request (Frigate's and Superset's
 * WebSocket locations) still keeps it alive, as nginx 1.22 reusing one upstream connection shows.
 */
function keepsAlive(value: string): boolean {
  // A variable not read from a map here (`$http_connection`, a `set`) may well say close.
  return !value.includes('$') && !/(^|[\s,])close($|[\s,])/i.test(value);
}

/**
 * Idle keep-alive must be closed by the client side first: the proxy's upstream keepalive_timeout
 * below the app's keep-alive timeout, and the outer load balancer's idle timeout below nginx's
 * keepalive_timeout. Both other timeouts are declared with `# proxyops:` annotations.
 */
export const KEEPALIVE_TIMEOUT_ORDER: LintRule = {
  id: 'keepalive-timeout-order',
  severity: 'warning',
  title: 'keep-alive closed by the server side first',
  message:
    'When the server side of an idle keep-alive connection closes it first, the client side may send a request on it at that moment and gets a reset: sporadic 502s under light load.',
  fix: 'upstream keepalive_timeout below the app keep-alive timeout (# proxyops: app-keepalive-timeout T), nginx keepalive_timeout above the load balancer idle timeout (# proxyops: outer-idle-timeout T)',
  runbook: RUNBOOKS.keepAliveTimeouts,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const { block, chain } of listUpstreamScopes(config)) {
      const declared = effectiveDirective(chain, 'proxyops:app-keepalive-timeout');
      const app = parseNginxTime(declared?.args[0] ?? '');
      const keepalive = childrenNamed(block, 'keepalive')[0];
      if (app === undefined || !keepalive) continue;
      const timeout = childrenNamed(block, 'keepalive_timeout')[0];
      const ours = parseNginxTime(timeout?.args[0] ?? '60s') ?? 0;
      if (ours >= app)
        hits.push({
          file: (timeout ?? keepalive).file,
          line: (timeout ?? keepalive).line,
          what: `upstream ${block.args[0] ?? ''} keeps idle connections ${formatNginxTime(ours)}${timeout ? '' : ' (default)'}, not less than the app's ${formatNginxTime(app)}`,
        });
    }
    const root = rootBlock(config);
    for (const { block, chain } of listServers(config)) {
      const declared = effectiveDirective([root, ...chain.slice(1)], 'proxyops:outer-idle-timeout');
      const outer = parseNginxTime(declared?.args[0] ?? '');
      if (outer === undefined) continue;
      const timeout = effectiveDirective(chain, 'keepalive_timeout');
      const ours = parseNginxTime(timeout?.args[0] ?? '75s') ?? 0;
      if (ours <= outer)
        hits.push({
          file: (timeout ?? block).file,
          line: (timeout ?? block).line,
          what: `keepalive_timeout ${formatNginxTime(ours)}${timeout ? '' : ' (default)'} is not above the load balancer idle timeout ${formatNginxTime(outer)}`,
        });
    }
    return hits;
  },
};
