import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import { describeErrno } from '../describe-path.js';
import {
  commitStagedVersion,
  discardStaged,
  pruneVersions,
  readVersionState,
  stageVersion,
  versionDir,
} from './config-versions.js';

/**
 * The history of changes to a hand-written tree, under proxyops' state directory:
 *   STATE/versions/vNNNN/record.json   what changed, when, the digests
 *   STATE/versions/vNNNN/before/PATH   each changed file as it was (PATH: the absolute path, no leading /)
 *   STATE/versions/vNNNN/after/PATH    and as the change left it
 * A version is staged and renamed into place, as rendered versions are.
 */

/** Versions kept: each holds only the files one change touched. */
export const KEEP_TREE_VERSIONS = 20;

const RECORD_FILE = 'record.json';

/** What a change was: an adoption, its undo, a rollback, a whole tree shipped. */
export type TreeChangeKind = 'adopt' | 'undo-adopt' | 'rollback' | 'tree';

/** One file a version changed; sha256 of its text before and after (absent: there was, or is, no file). */
export interface TreeVersionFile {
  path: string;
  before?: string;
  after?: string;
}

/** record.json of a version. */
export interface TreeVersionRecord {
  kind: TreeChangeKind;
  appliedAt: string;
  conf: string;
  summary: string;
  files: TreeVersionFile[];
  /** The adoption record (STATE/adoption.json) before and after, so a rollback restores it too. */
  adoption?: { before: unknown; after: unknown };
}

/** A file's texts in a version; undefined where there was (or is) no file. */
export interface TreeVersionTexts {
  path: string;
  before?: string;
  after?: string;
}

/** sha256 of a text, as history and the tests name it. */
export function digestText(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Records a change as the next version (or `name`: every host of a change takes the same one). */
export async function recordTreeVersion(
  state: string,
  entry: Omit<TreeVersionRecord, 'files'> & { texts: readonly TreeVersionTexts[] },
  name?: string,
): Promise<string> {
  const { texts, ...rest } = entry;
  const record: TreeVersionRecord = {
    ...rest,
    files: texts.map(({ path, before, after }) => ({
      path,
      ...(before === undefined ? {} : { before: digestText(before) }),
      ...(after === undefined ? {} : { after: digestText(after) }),
    })),
  };
  const files: Record<string, string> = { [RECORD_FILE]: `${JSON.stringify(record, null, 2)}\n` };
  for (const { path, before, after } of texts) {
    if (before !== undefined) files[join('before', path)] = before;
    if (after !== undefined) files[join('after', path)] = after;
  }
  // Private: the copies may hold secrets their originals kept 0600 (a bearer token in a site).
  const staged = await stageVersion(state, files, 'private');
  try {
    const version = await commitStagedVersion(state, staged, name);
    await pruneVersions(state, KEEP_TREE_VERSIONS);
    return version;
  } catch (error) {
    await discardStaged(staged);
    throw error;
  }
}

/** The kept versions, oldest first, each with its record. */
export async function readTreeHistory(
  state: string,
): Promise<Array<{ version: string; record: TreeVersionRecord }>> {
  const { versions } = await readVersionState(state);
  return Promise.all(
    versions.map(async (version) => ({ version, record: await readRecord(state, version) })),
  );
}

/** A version's record and the texts it kept of each file. */
export async function readTreeVersion(
  state: string,
  version: string,
): Promise<{ record: TreeVersionRecord; texts: TreeVersionTexts[] }> {
  const record = await readRecord(state, version);
  const dir = versionDir(state, version);
  const texts = await Promise.all(
    record.files.map(async (file) => ({
      path: file.path,
      ...(file.before === undefined ? {} : { before: await readKept(join(dir, 'before', file.path)) }),
      ...(file.after === undefined ? {} : { after: await readKept(join(dir, 'after', file.path)) }),
    })),
  );
  return { record, texts };
}

async function readRecord(state: string, version: string): Promise<TreeVersionRecord> {
  const text = await readKept(join(versionDir(state, version), RECORD_FILE));
  try {
    return JSON.parse(text) as TreeVersionRecord;
  } catch (error) {
    throw new ProxyopsError('VERSION_UNREADABLE', `${version}/${RECORD_FILE} under ${state} is not JSON`, {
      cause: error,
    });
  }
}

async function readKept(path: string): Promise<string> {
  return readFile(path, 'utf8').catch((error: unknown) => {
    throw new ProxyopsError('VERSION_UNREADABLE', `cannot read ${path}: ${describeErrno(error)}`, {
      cause: error,
    });
  });
}
