import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLiveAccessLog } from '../../../proxy-config/deploy/live-access-log.js';

describe('reading the live nginx for the deploy watch', () => {
  const made: string[] = [];
  afterAll(async () => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

  it('says a pid file that exists but cannot be read cannot be read, not that no nginx runs', async () => {
    const root = await mkdtemp(join(tmpdir(), 'proxyops-live-log-'));
    made.push(root);
    // A directory where the pid file should be: it exists, and reading it fails (EISDIR), even as root.
    const read = await readLiveAccessLog(root, join(root, 'access.log'), 'app');
    expect(read).toEqual({ notRead: `cannot read pid file ${root}: EISDIR` });
  });
});
