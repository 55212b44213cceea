import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeErrno, describePathInTheWay } from '../../../proxy-config/shell/describe-path.js';

describe('describePathInTheWay', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-in-the-way-'));
    await writeFile(join(dir, 'file'), '');
    await mkdir(join(dir, 'sub'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('names the file above a path, or the path itself, that is not a directory', async () => {
    const file = join(dir, 'file');
    const inTheWay = `${file} is a regular file, not a directory`;
    expect(await describePathInTheWay(file)).toBe(inTheWay);
    expect(await describePathInTheWay(join(file, 'a', 'b'))).toBe(inTheWay);
  });

  it('keeps a relative path relative, as the user wrote it', async () => {
    const file = relative(process.cwd(), join(dir, 'file'));
    expect(await describePathInTheWay(join(file, 'sub'))).toBe(`${file} is a regular file, not a directory`);
  });

  it('is undefined when only directories, or nothing yet, are on the way', async () => {
    expect(await describePathInTheWay(join(dir, 'sub'))).toBeUndefined();
    expect(await describePathInTheWay(join(dir, 'sub', 'missing', 'deeper'))).toBeUndefined();
  });
});

describe('describeErrno', () => {
  it('keeps the code and its description, not the call and path Node appends', async () => {
    const error = await readFile('/nonexistent/x.yaml').catch((e: unknown) => e);
    expect(describeErrno(error)).toBe('ENOENT: no such file or directory');
    const renamed = await rename('/nonexistent/a', '/nonexistent/b').catch((e: unknown) => e);
    expect(describeErrno(renamed)).toBe('ENOENT: no such file or directory');
    const write = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(describeErrno(write)).toBe('ENOSPC: no space left on device');
    expect(describeErrno(new Error('incorrect header check, in x'))).toBe('incorrect header check, in x');
  });
});
