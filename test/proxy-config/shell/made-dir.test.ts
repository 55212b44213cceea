import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inMadeDir } from '../../../proxy-config/shell/made-dir.js';

describe('inMadeDir', () => {
  const roots: string[] = [];
  const root = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'proxyops-made-dir-'));
    roots.push(dir);
    return dir;
  };
  afterAll(() => Promise.all(roots.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('a refused run leaves no directory it made, parents included (issue 36: a wrong --target)', async () => {
    const top = await root();
    const dir = join(top, 'state-new', 'nested');
    await expect(
      inMadeDir(dir, () => {
        expect(existsSync(dir)).toBe(true);
        return Promise.reject(new Error('refused'));
      }),
    ).rejects.toThrow('refused');
    expect(existsSync(join(top, 'state-new'))).toBe(false);
    expect(existsSync(top)).toBe(true);
  });

  it('a run with nothing to write leaves none either; one that wrote keeps it', async () => {
    const top = await root();
    await inMadeDir(join(top, 'idle'), () => Promise.resolve());
    expect(existsSync(join(top, 'idle'))).toBe(false);
    await inMadeDir(join(top, 'used'), () => writeFile(join(top, 'used', 'record.json'), '{}'));
    expect(existsSync(join(top, 'used', 'record.json'))).toBe(true);
  });

  it('never removes a directory that was there before, even empty', async () => {
    const top = await root();
    await expect(inMadeDir(top, () => Promise.reject(new Error('refused')))).rejects.toThrow();
    expect(existsSync(top)).toBe(true);
  });
});
