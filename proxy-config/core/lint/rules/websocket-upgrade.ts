import { connectionForUpgradeRequests } from '../../nginx-config/connection-header.js';
import {
  effectiveDirective,
  effectiveProxyHeaders,
  isMainConfig,
  missingIncludeCouldSet,
  type ScopeChain,
} from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import { describeBlock, listProxiedLocations } from '../proxied-locations.js';
import type { LintRule, RuleHit } from '../types.js';

/** A proxying location that sends an Upgrade header upstream, with where to report it. */
interface UpgradeRoute {
  chain: ScopeChain;
  proxyPass: NginxDirective;
  what: string;
  upgrade: string;
}

/**
 * The proxying locations that send Upgrade. nginx takes neither proxy_set_header nor
 * proxy_http_version inside `if`, so a proxy_pass written in an `if` of the location (found by
 * listProxiedLocations) runs with the location's own, or inherited, settings.
 */
function upgradeRoutes(config: NginxConfig): UpgradeRoute[] {
  return listProxiedLocations(config).flatMap(({ block, chain, proxyPass }) => {
    const upgrade = effectiveProxyHeaders(chain).get('upgrade');
    // An empty value sends no Upgrade: that location does not switch protocols.
    return upgrade ? [{ chain, proxyPass, what: describeBlock(block), upgrade }] : [];
  });
}

/**
 * An Upgrade header without `Connection: upgrade`: nginx drops the client's hop-by-hop Connection
 * and sends `Connection: close` (or none, for `""`), so the app sees a plain request (RFC 6455 §4.2.1
 * asks for the token; Node's HTTP parser only emits `upgrade` with it) and the handshake fails.
 * A warning, not an error: the pair is copied widely into sites that never upgrade (the ASP.NET Core
 * guide's `Connection keep-alive`), and clients such as SignalR's fall back to long polling; only
 * the app knows whether WebSockets are needed.
 */
export const PROXY_UPGRADE_CONNECTION_MISSING: LintRule = {
  id: 'proxy-upgrade-connection-missing',
  severity: 'warning',
  title: 'Upgrade sent upstream without Connection: upgrade',
  message:
    'nginx does not pass the client\'s Connection header upstream: without a proxy_set_header Connection carrying "upgrade" it sends "Connection: close" (or the value set, such as keep-alive), the app takes the WebSocket handshake for a plain request and refuses it (ws answers 426), so WebSockets never connect.',
  fix: "map $http_upgrade $connection_upgrade { default upgrade; '' close; } at http level, and proxy_set_header Connection $connection_upgrade; next to proxy_set_header Upgrade $http_upgrade;",
  runbook: null,
  test: (config) =>
    upgradeRoutes(config).flatMap(({ chain, proxyPass, what, upgrade }): RuleHit[] => {
      const connection = effectiveProxyHeaders(chain).get('connection');
      // A value that cannot be told here (`$http_connection`, a `set`) is given the benefit of the doubt.
      const handshake =
        connection === undefined ? undefined : connectionForUpgradeRequests(connection, config);
      if (connection !== undefined && (handshake === undefined || /\bupgrade\b/i.test(handshake))) return [];
      if (connection === undefined && missingIncludeCouldSet(chain, 'proxy_set_header')) return [];
      const sent =
        connection === undefined
          ? 'no Connection header is set (nginx sends "close")'
          : `Connection is "${connection}"${connection === handshake ? '' : ` ("${handshake ?? ''}" for a handshake)`}`;
      return [
        {
          file: proxyPass.file,
          line: proxyPass.line,
          directive: proxyPass,
          what: `${what} sends Upgrade ${upgrade} but ${sent}`,
        },
      ];
    }),
};

/**
 * An Upgrade header over HTTP/1.0, nginx's default proxy_http_version. nginx relays the app's 101
 * whatever version it spoke (checked on nginx 1.22 with Node's ws, which accepts the handshake), but
 * RFC 6455 §4.1 requires HTTP/1.1, and servers that enforce it (Go's coder/websocket) refuse the upgrade.
 */
export const PROXY_UPGRADE_HTTP10: LintRule = {
  id: 'proxy-upgrade-http10',
  severity: 'warning',
  title: 'Upgrade sent upstream over HTTP/1.0',
  message:
    "nginx talks HTTP/1.0 to upstreams by default, and RFC 6455 allows the WebSocket handshake only over HTTP/1.1: a server that enforces it (Go's coder/websocket, for one) refuses the upgrade, lenient ones (Node's ws, uvicorn) accept it.",
  fix: 'proxy_http_version 1.1; in the location (or server) that sets proxy_set_header Upgrade',
  runbook: null,
  test: (config) => {
    const main = isMainConfig(config);
    return upgradeRoutes(config).flatMap(({ chain, proxyPass, what }): RuleHit[] => {
      const version = effectiveDirective(chain, 'proxy_http_version');
      if (version?.args[0] === '1.1' || missingIncludeCouldSet(chain, 'proxy_http_version')) return [];
      // In a snippet the http level of the nginx.conf including it may set it.
      const where = version
        ? `proxy_http_version ${version.args[0] ?? ''}`
        : `no proxy_http_version${main ? '' : ' in this file'} (nginx's default is 1.0)`;
      return [
        {
          file: proxyPass.file,
          line: proxyPass.line,
          directive: proxyPass,
          what: `${what} sends Upgrade over HTTP/1.0: ${where}`,
        },
      ];
    });
  },
};
