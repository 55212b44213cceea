import { afterEach, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  recordedStatus,
  startInstance,
  stopRecorded,
} from '../../../proxy-config/shell/process/instance-process.js';
import { readProcessIdentity } from '../../../proxy-config/shell/process/process-identity.js';

describe('recorded processes', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0)) await step();
  });

  it('an instance that rewrites its command line (process.title, setproctitle) is still ours, and is stopped', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'proxyops-identity-'));
    const started = await startInstance(
      {
        file: process.execPath,
        // Retitled once started, as gunicorn or puma do.
        args: [
          '-e',
          'setTimeout(() => { process.title = "app: master"; }, 200); setInterval(() => {}, 1000);',
        ],
        env: {},
      },
      { logFile: join(dir, 'instance.log') },
    );
    cleanup.push(async () => {
      try {
        process.kill(started.pid, 'SIGKILL');
      } catch {
        // already stopped by the test
      }
      await rm(dir, { recursive: true, force: true });
    });
    await expect.poll(async () => (await readProcessIdentity(started.pid))?.cmdline).toBe('app: master');
    expect(await recordedStatus(started)).toBe('ours');
    expect((await stopRecorded(started, 'SIGTERM', 5_000))?.exited).toBe(true);
    expect(await recordedStatus(started)).toBe('gone');
  });

  it('a pid whose start time differs is a stranger', async () => {
    const me = await readProcessIdentity(process.pid);
    expect(await recordedStatus({ pid: process.pid, identity: { ...me!, startTime: '1' } })).toBe('stranger');
    expect(await recordedStatus({ pid: process.pid, identity: { ...me!, bootId: 'another-boot' } })).toBe(
      'stranger',
    );
    expect(await recordedStatus({ pid: process.pid, identity: me })).toBe('ours');
  });
});
