import { lstat, readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { GLOB_CHARS, globPath } from '../../core/nginx-config/glob-path.js';
import { parseNginxConfig } from '../../core/nginx-config/parse-nginx-config.js';
import type { NginxDirective } from '../../core/nginx-config/types.js';
import { isWorkerRetired, readChildPids } from './nginx-master.js';

/**
 * Whether a running nginx loaded the files on disk as they are now. nginx cannot dump what it
 * loaded (`nginx -T` reads the disk again), so the proof is the clock: a file of the tree (or a
 * wildcard's directory) whose inode changed after the master's current workers started was not
 * read by them.
 */

/** The kernel's USER_HZ: /proc's start times count these ticks (100 on every Linux ABI we run on). */
const TICKS_PER_SECOND = 100;

/**
 * When the master's current workers started (the earliest of those still taking connections), in
 * ms since the epoch, two ticks late: /proc gives whole ticks and the boot instant is known to a
 * tick, and a file written just before the reload that read it must not count as later. Undefined
 * when none runs.
 */
export async function workersStartedAt(masterPid: number): Promise<number | undefined> {
  const bootMs = await readBootInstant();
  let earliest: number | undefined;
  for (const pid of await readChildPids(masterPid)) {
    if (await isWorkerRetired(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    // Fields after the command name (which may hold spaces and parentheses); starttime is field 22.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    if (!Number.isFinite(ticks)) continue;
    earliest = Math.min(earliest ?? Infinity, ticks);
  }
  if (earliest === undefined) return undefined;
  return bootMs + ((earliest + 2) / TICKS_PER_SECOND) * 1000;
}

/**
 * The files (or the links naming them), and the directories a wildcard include of theirs expands,
 * changed after `since` (ms since the epoch), with when. `paths` is the tree as the reader lists
 * it, main file first. The ctime, not the mtime: `cp -p`, `rsync -a`, `tar x` and `touch -r` set
 * an old mtime on a new text, but nobody can set a ctime back; a site removed from a wildcard's
 * directory (or added, or re-linked) changes that directory's ctime.
 */
export async function filesChangedSince(
  paths: readonly string[],
  since: number,
): Promise<Array<{ path: string; changed: Date }>> {
  const found: Array<{ path: string; changed: Date }> = [];
  for (const path of [...paths, ...(await wildcardDirs(paths))]) {
    // The file read through its links, and the link itself (a site re-pointed to another file).
    const times = await Promise.all([stat(path), lstat(path)].map((p) => p.catch(() => undefined)));
    const latest = Math.max(...times.map((t) => t?.ctimeMs ?? 0));
    if (latest > since) found.push({ path, changed: new Date(latest) });
  }
  return found;
}

/**
 * The directories the tree's wildcard includes list (`include sites-enabled/*;` reads
 * sites-enabled/): the glob-free part of each pattern, and each directory a match sits in. A
 * relative pattern resolves against the main file's directory, as the reader resolves it.
 */
async function wildcardDirs(paths: readonly string[]): Promise<string[]> {
  const [main] = paths;
  if (main === undefined) return [];
  const dirs = new Set<string>();
  for (const file of paths) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    let directives: NginxDirective[];
    try {
      directives = parseNginxConfig(text, file);
    } catch {
      continue; // the reader read it: a file it refuses is not part of the tree
    }
    for (const pattern of includePatterns(directives)) {
      const absolute = isAbsolute(pattern) ? pattern : join(dirname(main), pattern);
      if (!GLOB_CHARS.test(absolute)) continue;
      const fixed = absolute.split('/');
      dirs.add(
        fixed
          .slice(
            0,
            fixed.findIndex((part) => GLOB_CHARS.test(part)),
          )
          .join('/') || '/',
      );
      const matches = globPath(absolute);
      for (const path of paths) if (matches.test(path)) dirs.add(dirname(path));
    }
  }
  return [...dirs];
}

function includePatterns(directives: readonly NginxDirective[]): string[] {
  return directives.flatMap((d) => [
    ...(d.name === 'include' && d.args.length === 1 ? [d.args[0]!] : []),
    ...includePatterns(d.children ?? []),
  ]);
}

/** The boot instant in ms since the epoch, to a tick (/proc/stat's btime is whole seconds: too coarse). */
async function readBootInstant(): Promise<number> {
  // The clock read before /proc/uptime, not after: on a busy host the read can wait long, and a
  // boot instant late by that wait would date the workers late and miss an edit made meanwhile.
  const before = Date.now();
  const uptime = Number((await readFile('/proc/uptime', 'utf8')).split(' ')[0]);
  return before - uptime * 1000;
}
