import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isProcessAlive,
  startInstance,
  stopInstance,
} from '../../../proxy-config/shell/process/instance-process.js';

describe('instance processes (execa, detached, stopped by pid)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-instance-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const node = (script: string) => ({
    file: process.execPath,
    args: ['-e', script],
    env: { GREETING: 'hi' },
  });

  it('starts with its output in the log file and the given environment, and stops on the signal', async () => {
    const logFile = join(dir, 'logs', 'a.log');
    const started = await startInstance(
      node(
        "process.on('SIGQUIT', () => process.exit(0)); console.log(process.env.GREETING); setInterval(() => {}, 1000)",
      ),
      { logFile },
    );
    expect(await isProcessAlive(started.pid)).toBe(true);
    // Printed after its handler is in; a node child on a loaded machine can take over poll's default 1 s.
    await expect.poll(() => readFile(logFile, 'utf8').catch(() => ''), { timeout: 10_000 }).toBe('hi\n');
    const stop = await stopInstance(started.pid, 'SIGQUIT', 10_000);
    expect(stop).toMatchObject({ exited: true, forced: false });
    expect(await isProcessAlive(started.pid)).toBe(false);
  });

  it('kills an instance that ignores the signal past the bound', async () => {
    const logFile = join(dir, 'b.log');
    const started = await startInstance(
      node("process.on('SIGTERM', () => {}); console.log('ignoring'); setInterval(() => {}, 1000)"),
      { logFile },
    );
    // A fixed sleep raced the child's start-up on a loaded machine: SIGTERM arrived before the handler.
    await expect
      .poll(() => readFile(logFile, 'utf8').catch(() => ''), { timeout: 10_000 })
      .toBe('ignoring\n');
    const stop = await stopInstance(started.pid, 'SIGTERM', 300);
    expect(stop).toMatchObject({ exited: true, forced: true });
    expect(stop.ms).toBeGreaterThanOrEqual(300);
  });

  it('turns a command that cannot start into INSTANCE_START_FAILED with the system message', async () => {
    await expect(
      startInstance(
        { file: join(dir, 'no-such-binary'), args: [], env: {} },
        { logFile: join(dir, 'c.log') },
      ),
    ).rejects.toMatchObject({ code: 'INSTANCE_START_FAILED', message: expect.stringMatching(/ENOENT/) });
  });
});
