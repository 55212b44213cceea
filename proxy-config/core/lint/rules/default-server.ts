import { childrenNamed, isMainConfig, listServers } from '../../nginx-config/query.js';
import { includeCouldSet } from '../../nginx-config/stock-files.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';
import { socketKey } from './server-names.js';

export interface Listener {
  server: NginxDirective;
  /** The listen directive, or the server itself when it has none (nginx then listens on *:80). */
  at: NginxDirective;
  isDefault: boolean;
}

/**
 * True when some of a server's listen lines may sit in an include that was not read (trimstray's
 * `include /etc/nginx/master/_listen/10.240.20.2/https.conf;` in each server): which sockets it is on,
 * and whether it is their default_server, is unknown.
 */
export function listensMayBeUnread(server: NginxDirective): boolean {
  return childrenNamed(server, 'include').some(
    (d) => d.missing !== undefined && includeCouldSet(d, 'listen'),
  );
}

/**
 * The servers of each TCP/UDP socket shared by two servers or more, keyed `address:port`: where
 * nginx picks one default server per socket. Unix sockets are left out. A server with no listen of
 * its own is on *:80, unless an include that was not read may hold its listen lines.
 */
export function sharedSockets(config: NginxConfig): Map<string, Listener[]> {
  const sockets = new Map<string, Listener[]>();
  for (const { block } of listServers(config)) {
    const listens = childrenNamed(block, 'listen');
    if (listens.length === 0 && listensMayBeUnread(block)) continue;
    const entries: Array<[string, Listener]> =
      listens.length > 0
        ? listens.map((l) => [
            socketKey(l),
            {
              server: block,
              at: l,
              isDefault: l.args.includes('default_server') || l.args.includes('default'),
            },
          ])
        : [['*:80', { server: block, at: block, isDefault: false }]];
    for (const [key, listener] of entries) sockets.set(key, [...(sockets.get(key) ?? []), listener]);
  }
  return new Map(
    [...sockets].filter(
      ([key, listeners]) => !key.startsWith('unix:') && new Set(listeners.map((l) => l.server)).size > 1,
    ),
  );
}

/** gixy's default_server_flag (two default_server flags are default-server-duplicate's). */
export const DEFAULT_SERVER_MISSING: LintRule = {
  id: 'default-server-missing',
  severity: 'warning',
  title: 'servers share a listen address without one default_server',
  message:
    'When several servers listen on one address:port, a request whose Host matches none of them (scanners, an IP address, a new CNAME) goes to the default: without a default_server flag that is whichever server nginx read first, which changes when an include glob gains a file — one site starts answering for every unknown name, certificate errors and all.',
  fix: 'mark exactly one server per address:port with default_server (usually a catch-all: server_name _; return 444;)',
  runbook: null,
  test: (config) => {
    // In a snippet the default server may well sit in another file (h5bp's conf.d/.default.conf).
    if (!isMainConfig(config)) return [];
    // A server whose listen lines may sit in an unread include may be any socket's default_server.
    if (listServers(config).some(({ block }) => listensMayBeUnread(block))) return [];
    const hits: RuleHit[] = [];
    for (const [key, listeners] of sharedSockets(config)) {
      if (listeners.some((l) => l.isDefault)) continue;
      const first = listeners[0] as Listener;
      hits.push({
        file: first.at.file,
        line: first.at.line,
        what: `${new Set(listeners.map((l) => l.server)).size} servers listen on ${key} and none is default_server: the first one read answers unknown hosts`,
      });
    }
    return hits;
  },
};
