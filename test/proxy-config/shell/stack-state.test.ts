import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  lockDeploys,
  readStackState,
  removeStackState,
  stackStatePath,
  writeStackState,
  type StackState,
} from '../../../proxy-config/shell/stack-state.js';
import { recordStart } from '../../../proxy-config/core/deploy/own-start.js';

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

describe('the state file (instances.json)', () => {
  let target: string;
  const PASSWORD = 'pa55-w0rd-secret';
  const state: StackState = {
    version: 1,
    upstreams: { api: [{ host: '127.0.0.1', port: 9001, pid: 42, inUpstream: true }] },
    instanceEnv: {
      DATABASE_URL: `postgres://app:${PASSWORD}@db.internal:5432/app`,
      PROXYOPS_DB_POOL_MAX: '4',
    },
  };
  beforeEach(async () => {
    target = await mkdtemp(join(tmpdir(), 'proxyops-state-'));
  });
  afterEach(() => rm(target, { recursive: true, force: true }));

  const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

  it('is written mode 0600, also over a file that was world-readable', async () => {
    await writeFile(stackStatePath(target), '{}', { mode: 0o644 });
    await chmod(stackStatePath(target), 0o644);
    await writeStackState(target, state);
    expect(await modeOf(stackStatePath(target))).toBe(0o600);
  });

  it('never holds a secret: DATABASE_URL lives in a 0600 file it refers to, and reads back whole', async () => {
    await writeStackState(target, state);
    const text = await readFile(stackStatePath(target), 'utf8');
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain('postgres://');
    const onDisk = JSON.parse(text);
    expect(onDisk.instanceEnv).toEqual({ PROXYOPS_DB_POOL_MAX: '4' });
    expect(onDisk.instanceSecrets).toEqual({ file: 'instance-secrets.json', names: ['DATABASE_URL'] });
    const secrets = join(target, onDisk.instanceSecrets.file);
    expect(await modeOf(secrets)).toBe(0o600);
    expect(await readFile(secrets, 'utf8')).toContain(PASSWORD);
    expect(await readStackState(target)).toEqual(state);
  });

  it('a missing secrets file or one named elsewhere is STATE_UNREADABLE, and removal takes both files', async () => {
    await writeStackState(target, state);
    await rm(join(target, 'instance-secrets.json'));
    await expect(readStackState(target)).rejects.toMatchObject({ code: 'STATE_UNREADABLE' });
    const onDisk = JSON.parse(await readFile(stackStatePath(target), 'utf8'));
    onDisk.instanceSecrets.file = '../../etc/shadow';
    await writeFile(stackStatePath(target), JSON.stringify(onDisk));
    await expect(readStackState(target)).rejects.toMatchObject({ code: 'STATE_UNREADABLE' });
    await writeStackState(target, state);
    await removeStackState(target);
    expect(await readdir(target)).toEqual([]);
  });

  it("keeps the old release's own start, its request times one line per instance, and reads it back", async () => {
    const start = recordStart(
      [
        { ms: Array.from({ length: 300 }, (_, i) => 100 - (i % 90)), routes: Array(300).fill('GET /[a]') },
        { ms: [12, 9.6], routes: ['POST /orders', 'GET /[a]'] },
      ],
      '2026-12-06T10:00:00.000Z',
      'v1',
    );
    const withStart: StackState = { ...state, starts: { api: start } };
    await writeStackState(target, withStart);
    const text = await readFile(stackStatePath(target), 'utf8');
    expect(text.split('\n').length).toBeLessThan(60);
    expect(text).toContain('"ms": [12,10]');
    expect(text).toContain('"routes": [\n');
    expect(await readStackState(target)).toEqual(withStart);
    const onDisk = JSON.parse(text);
    onDisk.starts.api.instances[1].route = [5, 0];
    await writeFile(stackStatePath(target), JSON.stringify(onDisk));
    await expect(readStackState(target)).rejects.toMatchObject({
      code: 'STATE_UNREADABLE',
      message: expect.stringContaining('starts.api is not a recorded start (instance 2 has no request times'),
    });
  });
});
