import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lockDeploys } from '../../../proxy-config/shell/stack-state.js';

describe('lockDeploys', () => {
  let target: string;
  beforeEach(async () => {
    target = await mkdtemp(join(tmpdir(), 'proxyops-deploy-lock-'));
  });
  afterEach(() => rm(target, { recursive: true, force: true }));

  it('refuses a second deploy while the first holds the lock, and frees it on release', async () => {
    const release = await lockDeploys(target);
    await expect(lockDeploys(target)).rejects.toMatchObject({
      code: 'DEPLOY_RUNNING',
      message: expect.stringContaining(`pid ${process.pid}`),
    });
    await release();
    expect(await readdir(target)).toEqual([]);
  });

  it('takes over a lock whose holder is gone', async () => {
    await writeFile(join(target, 'deploy.lock'), '999999999\n');
    const release = await lockDeploys(target);
    expect(await readFile(join(target, 'deploy.lock'), 'utf8')).toBe(`${process.pid}\n`);
    await release();
  });
});
