import { childrenNamed, isMainConfig, listServers } from '../../nginx-config/query.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';
import { socketKey } from './server-names.js';

interface Listener {
  server: NginxDirective;
  /** The listen directive, or the server itself when it has none (nginx then listens on *:80). */
  at: NginxDirective;
  isDefault: boolean;
}

/** gixy's default_server_flag, and the duplicate default nginx -t refuses (caught in snippets too). */
export const DEFAULT_SERVER_MISSING: LintRule = {
  id: 'default-server-missing',
  severity: 'warning',
  title: 'servers share a listen address without one default_server',
  message:
    'When several servers listen on one address:port, a request whose Host matches none of them (scanners, an IP address, a new CNAME) goes to the default: without a default_server flag that is whichever server nginx read first, which changes when an include glob gains a file — one site starts answering for every unknown name, certificate errors and all. Two default_server flags on one socket make nginx -t fail.',
  fix: 'mark exactly one server per address:port with default_server (usually a catch-all: server_name _; return 444;)',
  runbook: null,
  test: (config) => {
    const sockets = new Map<string, Listener[]>();
    const main = isMainConfig(config);
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
    const hits: RuleHit[] = [];
    for (const [key, listeners] of sockets) {
      if (key.startsWith('unix:') || new Set(listeners.map((l) => l.server)).size < 2) continue;
      const defaults = listeners.filter((l) => l.isDefault);
      // In a snippet the default server may well sit in another file (h5bp's conf.d/.default.conf).
      if (defaults.length === 0 && main) {
        const first = listeners[0] as Listener;
        hits.push({
          file: first.at.file,
          line: first.at.line,
          what: `${new Set(listeners.map((l) => l.server)).size} servers listen on ${key} and none is default_server: the first one read answers unknown hosts`,
        });
      }
      for (const extra of defaults.slice(1))
        hits.push({
          file: extra.at.file,
          line: extra.at.line,
          what: `a second default_server on ${key} (the first at ${defaults[0]?.at.file ?? ''}:${defaults[0]?.at.line ?? 0}): nginx -t refuses it`,
        });
    }
    return hits;
  },
};
