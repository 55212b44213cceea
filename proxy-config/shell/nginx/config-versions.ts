import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import {
  chmod,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  VERSION_RECORD_FILE,
  type VersionFiles,
  type VersionRecord,
} from '../../core/apply/config-change.js';
import { ProxyopsError } from '../../core/errors.js';
import { describeErrno, describeFileKind, describePathInTheWay } from '../describe-path.js';
import { writeRenderedFiles } from './write-rendered-files.js';

/**
 * Versioned config directories under a target, swapped atomically:
 *   TARGET/versions/v0001/, v0002/, …   one rendered config each, never modified once committed
 *   TARGET/current  -> versions/v0002   what nginx loads (`nginx -c TARGET/current/nginx.conf`)
 *   TARGET/previous -> versions/v0001   what `config rollback` returns to
 * A swap is a rename of a fresh symlink over `current`, which POSIX makes atomic.
 */
export interface VersionState {
  current?: string;
  previous?: string;
  versions: string[];
}

const VERSIONS = 'versions';
const MANAGED_LINK = /^versions\/v\d+$/;

/**
 * TARGET_INVALID unless `target` is missing or laid out as above: a directory whose `versions` is a
 * directory and whose `current`/`previous` are the symlinks this module writes. Anything else was
 * put there by someone else; apply would replace it and rollback would misread it.
 */
export async function checkTargetLayout(target: string): Promise<void> {
  const invalid = (message: string) => new ProxyopsError('TARGET_INVALID', message);
  const found = await statIfAny(target, stat, invalid);
  if (found && !found.isDirectory())
    throw invalid(`config target ${target} is ${describeFileKind(found)}, not a directory`);
  if (!found) return;
  const versions = await statIfAny(join(target, VERSIONS), stat, invalid);
  if (versions && !versions.isDirectory())
    throw invalid(
      `${join(target, VERSIONS)} is ${describeFileKind(versions)}, not the directory of config versions`,
    );
  for (const name of ['current', 'previous']) {
    const path = join(target, name);
    const link = await statIfAny(path, lstat, invalid);
    if (!link) continue;
    const points = link.isSymbolicLink() ? await readlink(path) : undefined;
    if (points === undefined || !MANAGED_LINK.test(points))
      throw invalid(
        `${path} is ${points === undefined ? describeFileKind(link) : `a symlink to ${points}`}, not a link to ` +
          `${VERSIONS}/vNNNN as \`proxyops config apply\` makes it; move it away first. Nothing changed`,
      );
  }
}

async function statIfAny(
  path: string,
  how: (path: string) => Promise<Stats>,
  invalid: (message: string) => Error,
): Promise<Stats | undefined> {
  try {
    return await how(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    const inTheWay = code === 'ENOTDIR' ? await describePathInTheWay(path) : undefined;
    throw invalid(`cannot use ${path}: ${inTheWay ?? describeErrno(error)}`);
  }
}

/** The directory of a version. */
export function versionDir(target: string, version: string): string {
  return join(target, VERSIONS, version);
}

/** Which versions exist and which ones `current` and `previous` point at. */
export async function readVersionState(target: string): Promise<VersionState> {
  const versions = (await readdir(join(target, VERSIONS)).catch(() => [] as string[]))
    .filter((n) => /^v\d+$/.test(n))
    .sort();
  const link = async (name: string) =>
    (await readlink(join(target, name)).catch(() => undefined))?.split('/').at(-1);
  const current = await link('current');
  const previous = await link('previous');
  return { versions, ...(current ? { current } : {}), ...(previous ? { previous } : {}) };
}

/** The rendered files of a version (config and manifest), without its apply record. */
export async function readVersionFiles(target: string, version: string): Promise<VersionFiles> {
  const dir = versionDir(target, version);
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((error: unknown) => {
    throw new ProxyopsError('VERSION_UNREADABLE', `cannot read ${dir}: ${describeErrno(error)}`, {
      cause: error,
    });
  });
  const files: VersionFiles = {};
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const name = relative(dir, join(entry.parentPath, entry.name));
    if (name !== VERSION_RECORD_FILE) files[name] = await readFile(join(dir, name), 'utf8');
  }
  return files;
}

/** The apply record of a version; undefined for versions applied before records were kept. */
export async function readVersionRecord(target: string, version: string): Promise<VersionRecord | undefined> {
  const path = join(versionDir(target, version), VERSION_RECORD_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ProxyopsError('VERSION_UNREADABLE', `cannot read ${path}: ${describeErrno(error)}`, {
      cause: error,
    });
  }
  try {
    return JSON.parse(text) as VersionRecord;
  } catch (error) {
    throw new ProxyopsError('VERSION_UNREADABLE', `${path} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Writes files into a fresh staging directory under the target (same filesystem, so commit is a
 * rename). A rendered config is for nginx's workers to read ('public'); a history of a hand-written
 * tree holds copies of its files, a 0600 site with a bearer token among them ('private': files 0600,
 * directories 0700, and the state directory's own mode left as its owner set it).
 */
export async function stageVersion(
  target: string,
  files: Record<string, string>,
  access: 'public' | 'private' = 'public',
): Promise<string> {
  if (access === 'private') {
    await mkdir(join(target, VERSIONS), { recursive: true, mode: 0o700 });
    return stageInto(target, files, PRIVATE_FILES);
  }
  await mkdir(join(target, VERSIONS), { recursive: true, mode: 0o755 });
  // nginx reads the config as root but its workers run unprivileged: the target must be traversable
  // whatever the umask. Bits are only added, so a sticky or group-writable target keeps its own.
  const { mode } = await stat(target);
  if ((mode & 0o755) !== 0o755) await chmod(target, (mode & 0o7777) | 0o755);
  return stageInto(target, files);
}

const PRIVATE_FILES = { file: 0o600, dir: 0o700 };

async function stageInto(
  target: string,
  files: Record<string, string>,
  modes?: { file: number; dir: number },
): Promise<string> {
  const dir = join(target, VERSIONS, `.staging-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await writeRenderedFiles(dir, files, modes);
  } catch (error) {
    await discardStaged(dir);
    throw error;
  }
  return dir;
}

/**
 * Renames a staged directory to the next version name, or to `name` (a change to several targets
 * gives each the same name, past every one's highest), and returns that name.
 */
export async function commitStagedVersion(
  target: string,
  stagingDir: string,
  name?: string,
): Promise<string> {
  const { versions } = await readVersionState(target);
  const last = Number(versions.at(-1)?.slice(1) ?? 0);
  const chosen = name ?? toVersionName(last + 1);
  if (versions.includes(chosen) || !/^v\d+$/.test(chosen))
    throw new ProxyopsError(
      'VERSION_TAKEN',
      `cannot commit ${chosen} under ${target}: ${versions.includes(chosen) ? 'it exists' : 'not a version name'}`,
    );
  await rename(stagingDir, versionDir(target, chosen));
  return chosen;
}

/** The name of version number `n`: v0001, v0002, … */
export function toVersionName(n: number): string {
  return `v${String(n).padStart(4, '0')}`;
}

/** Removes a staged directory that will not be used. */
export async function discardStaged(stagingDir: string): Promise<void> {
  await rm(stagingDir, { recursive: true, force: true });
}

/** Points `current` at `version` and `previous` at what `current` was, each by an atomic rename. */
export async function switchCurrent(target: string, version: string): Promise<VersionState> {
  const before = await readVersionState(target);
  if (before.current && before.current !== version) await pointAt(target, 'previous', before.current);
  await pointAt(target, 'current', version);
  return readVersionState(target);
}

/** Puts `current` and `previous` back as a saved state had them (after a reload nginx refused). */
export async function restoreVersionState(target: string, state: VersionState): Promise<void> {
  if (state.previous) await pointAt(target, 'previous', state.previous);
  if (state.current) await pointAt(target, 'current', state.current);
}

/** Deletes the oldest versions beyond `keep`, never the current or previous one. */
export async function pruneVersions(target: string, keep: number): Promise<string[]> {
  const state = await readVersionState(target);
  const removable = state.versions.filter((v) => v !== state.current && v !== state.previous);
  const doomed = removable.slice(0, Math.max(0, state.versions.length - keep));
  for (const v of doomed) await rm(versionDir(target, v), { recursive: true, force: true });
  return doomed;
}

async function pointAt(target: string, name: string, version: string): Promise<void> {
  const temp = join(target, `.${name}-${process.pid}-${randomBytes(4).toString('hex')}`);
  await symlink(join(VERSIONS, version), temp);
  await rename(temp, join(target, name));
}
