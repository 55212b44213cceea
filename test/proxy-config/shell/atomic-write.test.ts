import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileAtomically } from '../../../proxy-config/shell/atomic-write.js';

// The repo's one atomic write, on real files: exact mode whatever the umask, and a check that
// fails just before the rename leaves the old file and no temp file behind.
describe('writeFileAtomically', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-atomic-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the text with exactly the mode given, setgid bit included, and leaves no temp file', async () => {
    const path = join(dir, 'site.conf');
    await writeFile(path, 'old\n');
    const umask = process.umask(0o077);
    try {
      await writeFileAtomically(path, 'new\n', { mode: 0o2640 });
    } finally {
      process.umask(umask);
    }
    expect(await readFile(path, 'utf8')).toBe('new\n');
    expect((await stat(path)).mode & 0o7777).toBe(0o2640);
    expect(await readdir(dir)).toEqual(['site.conf']);
  });

  it('a check refusing just before the rename leaves the old file as it was', async () => {
    const path = join(dir, 'kept.conf');
    await writeFile(path, 'old\n');
    await chmod(path, 0o600);
    const refused = new Error('edited meanwhile');
    await expect(
      writeFileAtomically(path, 'new\n', { mode: 0o600 }, () => Promise.reject(refused)),
    ).rejects.toBe(refused);
    expect(await readFile(path, 'utf8')).toBe('old\n');
    expect((await readdir(dir)).filter((name) => name.includes('kept'))).toEqual(['kept.conf']);
  });
});
