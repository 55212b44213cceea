import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
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

/** Writes files into a fresh staging directory under the target (same filesystem, so commit is a rename). */
export async function stageVersion(target: string, files: Record<string, string>): Promise<string> {
  await mkdir(join(target, VERSIONS), { recursive: true, mode: 0o755 });
  await chmod(target, 0o755);
  const dir = join(target, VERSIONS, `.staging-${process.pid}-${randomBytes(4).toString('hex')}`);
  await writeRenderedFiles(dir, files);
  return dir;
}

/** Renames a staged directory to the next version name and returns that name. */
export async function commitStagedVersion(target: string, stagingDir: string): Promise<string> {
  const { versions } = await readVersionState(target);
  const last = Number(versions.at(-1)?.slice(1) ?? 0);
  const name = `v${String(last + 1).padStart(4, '0')}`;
  await rename(stagingDir, versionDir(target, name));
  return name;
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
