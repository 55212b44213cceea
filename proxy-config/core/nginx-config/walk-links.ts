import { dirname, isAbsolute, join, sep } from 'node:path';
import { NGINX_CONF_DIR } from './conf-dir.js';

/** Symlinks followed before giving up, as the kernel's ELOOP limit. */
export const MAX_LINKS = 40;

/**
 * What the walk asks of one path: its symlink's target, undefined when it is not a symlink; it
 * rejects with the system's error (ENOENT, ENOTDIR, …) when the path cannot be looked at.
 */
export type ReadLinkAt = (path: string) => Promise<string | undefined>;

/** Where a walk ended: the resolved path, the links followed (each once) and, if it stopped short, why. */
export interface WalkedPath {
  path: string;
  links: string[];
  /** A link (or a path the walk reached) was read elsewhere by `remap`. */
  moved: boolean;
  /** ENOENT, ENOTDIR or ELOOP: the file is not there. */
  error?: NodeJS.ErrnoException;
}

/**
 * Resolves `file` one component at a time, as the kernel does (a relative link target is read from
 * the directory the link really sits in). With `remap` (a copy of a host's /etc/nginx) every
 * absolute target, and every path the walk reaches, is read where `remap` puts it. Each step either
 * consumes a component or counts as a hop (a link followed, a path remapped), and more than
 * MAX_LINKS hops is ELOOP: the walk always ends, whatever links or remap it meets. An error other
 * than ENOENT or ENOTDIR ends the walk without `error`: it is left for the read to report.
 */
export async function walkLinks(
  file: string,
  readLinkAt: ReadLinkAt,
  remap?: (path: string) => string,
): Promise<WalkedPath> {
  // /etc/nginx itself (a link to the directory) is remapped as the paths under it are.
  const mapped = (path: string) =>
    remap ? remap(`${path}${sep}` === NGINX_CONF_DIR ? NGINX_CONF_DIR : path) : path;
  const links = new Set<string>();
  let done: string = sep;
  let rest = file.split(sep).filter(Boolean);
  let moved = false;
  let hops = 0;
  const tooMany = (at: string): WalkedPath => {
    const error: NodeJS.ErrnoException = new Error('ELOOP: too many levels of symbolic links');
    error.code = 'ELOOP';
    return { path: join(at, ...rest), links: [...links], moved, error };
  };
  while (rest.length > 0) {
    const name = rest.shift() as string;
    if (name === '.') continue;
    if (name === '..') {
      done = dirname(done);
      continue;
    }
    const path = join(done, name);
    const inCopy = mapped(path);
    if (inCopy !== path) {
      // A relative link that climbed into /etc/nginx: read again from the copy's root.
      if (++hops > MAX_LINKS) return tooMany(path);
      moved = true;
      done = sep;
      rest = [...inCopy.split(sep).filter(Boolean), ...rest];
      continue;
    }
    const target = await readLinkAt(path).catch((error: NodeJS.ErrnoException) => error);
    if (target instanceof Error) {
      const error = target as NodeJS.ErrnoException;
      const found = join(path, ...rest);
      if (error.code !== 'ENOENT' && error.code !== 'ENOTDIR')
        return { path: found, links: [...links], moved };
      return { path: found, links: [...links], moved, error };
    }
    if (target === undefined) {
      done = path;
      continue;
    }
    if (++hops > MAX_LINKS) return tooMany(path);
    const next = isAbsolute(target) ? mapped(target) : target;
    links.add(`${path} is a symlink to ${target}${next !== target ? ` (read as ${next})` : ''}`);
    if (next !== target) moved = true;
    if (isAbsolute(next)) done = sep;
    rest = [...next.split(sep).filter(Boolean), ...rest];
  }
  return { path: done, links: [...links], moved };
}
