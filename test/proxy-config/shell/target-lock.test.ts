import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withTargetLock } from '../../../proxy-config/shell/nginx/target-lock.js';

describe('withTargetLock', () => {
  let target: string;
  beforeEach(async () => {
    target = await mkdtemp(join(tmpdir(), 'proxyops-lock-'));
    await chmod(target, 0o755);
  });
  afterEach(() => rm(target, { recursive: true, force: true }));

  it('refuses a second holder while the first works, and cleans up after', async () => {
    let inner: unknown;
    await withTargetLock(target, async () => {
      inner = await withTargetLock(target, async () => 'second').catch((e: unknown) => e);
    });
    expect(inner).toMatchObject({
      code: 'TARGET_BUSY',
      message: expect.stringContaining(`pid ${process.pid}`),
    });
    expect(await readdir(target)).toEqual([]);
  });

  it('takes over a lock whose holder is gone', async () => {
    await writeFile(join(target, '.proxyops.lock'), '999999999\n');
    await expect(withTargetLock(target, async () => 'ran')).resolves.toBe('ran');
  });

  it('keeps a lock whose holder lives under another user (signal 0 answers EPERM)', async () => {
    await writeFile(join(target, '.proxyops.lock'), '4242\n');
    const kill = vi.spyOn(process, 'kill').mockImplementation(() => {
      throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
    });
    try {
      await expect(withTargetLock(target, async () => 'ran')).rejects.toMatchObject({ code: 'TARGET_BUSY' });
    } finally {
      kill.mockRestore();
    }
  });

  it('names a missing target', async () => {
    await expect(withTargetLock(join(target, 'nope'), async () => 1)).rejects.toMatchObject({
      code: 'TARGET_MISSING',
    });
  });
});
