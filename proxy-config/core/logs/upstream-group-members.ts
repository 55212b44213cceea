import { childrenNamed, listUpstreams } from '../nginx-config/query.js';
import type { NginxConfig } from '../nginx-config/types.js';

/**
 * `--upstream` values with each upstream group of `config` they name followed by its members:
 * nginx logs a member's address for every request through the group, and the group's name only when
 * no member was available ("no live upstreams"), so the name alone would miss its requests.
 */
export function withGroupMembers(values: readonly string[], config: NginxConfig): string[] {
  const groups = listUpstreams(config);
  const expanded = values.flatMap((value) => {
    const group = groups.get(value);
    const members = group ? childrenNamed(group, 'server').map((server) => server.args[0] ?? '') : [];
    return [value, ...members.filter((member) => member !== '')];
  });
  return [...new Set(expanded)];
}
