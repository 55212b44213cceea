import { join } from 'node:path';
import { ProxyopsError } from '../errors.js';
import type { TreeChange } from './tree.js';

/** What a host holds at each path a shipped tree names (read there): a file's text, a link's target. */
export interface HostTreeView {
  /** Absent when no file is there. */
  files: Record<string, string | undefined>;
  /** Absent when that path is not a symlink there. */
  links: Record<string, string | undefined>;
}

/**
 * The change that makes a host's tree hold a shipped one (`config apply --tree DIR`): every file of
 * DIR whose text differs from the host's, new files included; files the host has beyond DIR stay.
 * Paths are relative to DIR, which stands for `confDir` (the directory of nginx.conf) there. A link
 * is never made or moved: one that the host lacks or points elsewhere is refused (TREE_LINK_DIFFERS,
 * naming the `ln -s` that would make it), as is a file of DIR where the host has a link or the
 * reverse, since writing it would change what another path reads.
 */
export function planTreeFiles(
  conf: string,
  confDir: string,
  shipped: { files: Record<string, string>; links: Record<string, string> },
  host: HostTreeView,
): TreeChange {
  for (const [name, target] of Object.entries(shipped.links)) {
    const there = host.links[name];
    if (there !== target)
      throw new ProxyopsError(
        'TREE_LINK_DIFFERS',
        `${join(confDir, name)} is a link to ${target} in the tree and ` +
          (there === undefined ? 'not a link here' : `a link to ${there} here`) +
          `; proxyops writes files, not links: make it first (ln -sfn ${target} ${join(confDir, name)})`,
      );
  }
  const files = Object.entries(shipped.files).flatMap(([name, after]) => {
    if (host.links[name] !== undefined)
      throw new ProxyopsError(
        'TREE_LINK_DIFFERS',
        `${join(confDir, name)} is a link to ${host.links[name]} here and a file in the tree; ` +
          'ship the file it points to under its own path, or make it a link in the tree too',
      );
    const before = host.files[name] ?? '';
    return before === after && host.files[name] !== undefined
      ? []
      : [{ path: join(confDir, name), before, after }];
  });
  return { conf, files };
}
