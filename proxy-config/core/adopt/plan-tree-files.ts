import { dirname, isAbsolute, join, normalize } from 'node:path';
import { ProxyopsError } from '../errors.js';
import type { TreeChange } from './tree.js';

/** What a host holds at each path a shipped tree names (read there): a file's text, a link's target. */
export interface HostTreeView {
  /** Absent when no file is there. */
  files: Record<string, string | undefined>;
  /** Absent when that path is not a symlink there. */
  links: Record<string, string | undefined>;
  /**
   * For each link of the shipped tree: true when the file its target names exists there (through
   * any link on the way). Absent: not known to exist.
   */
  linkedFiles?: Record<string, boolean>;
}

/**
 * The change that makes a host's tree hold a shipped one (`config apply --tree DIR`): every file of
 * DIR whose text differs from the host's, new files included; files the host has beyond DIR stay.
 * Paths are relative to DIR, which stands for `confDir` (the directory of nginx.conf) there. A link
 * is never made or moved: one that the host lacks or points elsewhere is refused (TREE_LINK_DIFFERS,
 * saying how to get there), as is a file of DIR where the host has a link or the reverse, since
 * writing it would change what another path reads.
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
          `; proxyops writes files, not links: ${linkAdvice(confDir, name, target, shipped.files, host)}`,
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

/**
 * How to make a link the tree has and the host lacks. Never a link to a file the host does not
 * have: nginx's wildcard include would match it and fail to open it (nginx -t and every reload fail,
 * and proxyops refuses to read the tree), so the file goes in first, then the link.
 */
function linkAdvice(
  confDir: string,
  name: string,
  target: string,
  shippedFiles: Record<string, string>,
  host: HostTreeView,
): string {
  const path = join(confDir, name);
  const ln = `ln -sfn ${target} ${path}`;
  if (host.linkedFiles?.[name] === true) return `make it first (${ln})`;
  const named = isAbsolute(target) ? normalize(target) : join(dirname(path), target);
  const inTree = named.startsWith(`${confDir}/`) ? named.slice(confDir.length + 1) : undefined;
  if (inTree !== undefined && shippedFiles[inTree] !== undefined)
    return `${named}, the file it names, is not here yet: ship the tree without this link first (the file arrives, nothing includes it), then make the link (${ln}) and reload nginx`;
  return `${named}, the file it names, is not here: put it in place first, then make the link (${ln})`;
}
