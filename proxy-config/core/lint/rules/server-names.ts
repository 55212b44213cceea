import { childrenNamed, listServers } from '../../nginx-config/query.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import type { LintRule, RuleHit } from '../types.js';

/** The `address:port` a listen directive binds, with nginx's defaults (`*`, port 80). */
export function listenKey(listen: NginxDirective): string {
  const where = listen.args[0] ?? '80';
  if (where.startsWith('unix:')) return where;
  if (/^\d+$/.test(where)) return `*:${where}`;
  const bracketed = /^(\[[^\]]+\])(?::(\d+))?$/.exec(where);
  if (bracketed) return `${bracketed[1]}:${bracketed[2] ?? '80'}`;
  const [address = '*', port = '80'] = where.includes(':') ? where.split(':') : [where, '80'];
  return `${address}:${port}`;
}

/** One key per socket nginx binds: `0.0.0.0` is `*`, datagram (quic) sockets apart. */
export function socketKey(listen: NginxDirective): string {
  const key = listenKey(listen).replace(/^0\.0\.0\.0:/, '*:');
  return listen.args.includes('quic') ? `${key} quic` : key;
}

/** nginx's own "conflicting server name ... ignored" warning, which nginx -t prints but does not fail on. */
export const SERVER_NAME_CONFLICT: LintRule = {
  id: 'server-name-conflict',
  severity: 'warning',
  title: 'same server_name twice on one address',
  message:
    'When two server blocks claim the same name on the same address and port, nginx uses the first and ignores the second (a warning at reload, nothing at runtime): requests reach the wrong site or upstream.',
  fix: 'merge the two server blocks, or give each its own server_name or listen address',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    const seen = new Map<string, NginxDirective>();
    for (const { block } of listServers(config)) {
      const listens = childrenNamed(block, 'listen');
      // One key per socket: `listen 443 quic` (UDP) and `listen 443 ssl` (TCP) are two sockets of
      // the same server, and a server never conflicts with itself.
      const keys = listens.length > 0 ? [...new Set(listens.map(socketKey))] : ['*:80'];
      const names = childrenNamed(block, 'server_name').flatMap((d) => d.args.map((name) => ({ d, name })));
      for (const { d, name } of names) {
        if (name === '' || name === '_') continue;
        for (const key of keys) {
          const id = `${name.toLowerCase()} ${key}`;
          const first = seen.get(id);
          if (!first) seen.set(id, d);
          else
            hits.push({
              file: d.file,
              line: d.line,
              directive: d,
              what: `server_name ${name} on ${key} is already claimed at ${first.file}:${first.line}; this server is ignored for it`,
            });
        }
      }
    }
    return hits;
  },
};
