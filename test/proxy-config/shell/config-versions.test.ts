import { chmod, mkdtemp, readdir, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  commitStagedVersion,
  discardStaged,
  pruneVersions,
  readVersionState,
  restoreVersionState,
  stageVersion,
  switchCurrent,
} from '../../../proxy-config/shell/nginx/config-versions.js';

describe('config versions', () => {
  let target: string;
  beforeEach(async () => {
    target = await mkdtemp(join(tmpdir(), 'proxyops-versions-'));
    await chmod(target, 0o755);
  });
  afterEach(() => rm(target, { recursive: true, force: true }));

  async function install(content: string): Promise<string> {
    const staged = await stageVersion(target, { 'nginx.conf': content });
    const version = await commitStagedVersion(target, staged);
    await switchCurrent(target, version);
    return version;
  }

  it('makes the target traversable (mkdtemp gives 0700) and keeps the bits it already has', async () => {
    await chmod(target, 0o700);
    await install('one');
    expect((await stat(target)).mode & 0o7777).toBe(0o755);
    await chmod(target, 0o1775);
    await install('two');
    expect((await stat(target)).mode & 0o7777).toBe(0o1775);
  });

  it('numbers versions, points current at the newest and previous at the one before', async () => {
    expect(await readVersionState(target)).toEqual({ versions: [] });
    expect(await install('one')).toBe('v0001');
    expect(await install('two')).toBe('v0002');
    expect(await readVersionState(target)).toEqual({
      versions: ['v0001', 'v0002'],
      current: 'v0002',
      previous: 'v0001',
    });
    expect(await readlink(join(target, 'current'))).toBe('versions/v0002');
    expect(await readFile(join(target, 'current', 'nginx.conf'), 'utf8')).toBe('two');
  });

  it('leaves nothing behind when a staged version is discarded', async () => {
    await install('one');
    const staged = await stageVersion(target, { 'nginx.conf': 'bad' });
    await discardStaged(staged);
    expect(await readVersionState(target)).toMatchObject({ versions: ['v0001'], current: 'v0001' });
  });

  it('removes a staging directory it could not finish writing', async () => {
    // "a" is written first as a file, so "a/b" cannot be created below it.
    await expect(stageVersion(target, { a: 'x', 'a/b': 'y' })).rejects.toMatchObject({
      code: 'OUTPUT_UNWRITABLE',
    });
    expect(await readdir(join(target, 'versions'))).toEqual([]);
  });

  it('restores a saved state of both links', async () => {
    await install('one');
    await install('two');
    const saved = await readVersionState(target);
    await install('three');
    await restoreVersionState(target, saved);
    expect(await readVersionState(target)).toMatchObject({ current: 'v0002', previous: 'v0001' });
  });

  it('prunes the oldest versions but never current or previous', async () => {
    for (const c of ['1', '2', '3', '4']) await install(c);
    await restoreVersionState(target, { current: 'v0004', previous: 'v0001', versions: [] });
    expect(await pruneVersions(target, 2)).toEqual(['v0002', 'v0003']);
    expect((await readVersionState(target)).versions).toEqual(['v0001', 'v0004']);
  });
});
