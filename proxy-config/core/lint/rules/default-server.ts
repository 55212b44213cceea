import { childrenNamed, isMainConfig, listServers } from '../../nginx-config/query.js';
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
 * The servers of each TCP/UDP socket shared by two servers or more, keyed `address:port`: where
 * nginx picks one default server per socket. Unix sockets are left out.
 */
export function sharedSockets(config: NginxConfig): Map<string, Listener[]> {
  const sockets = new Map<string, Listener[]>();
  for (const { block } of listServers(config)) {
    const listens = childrenNamed(block, 'listen');
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
