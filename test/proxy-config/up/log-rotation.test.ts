import { existsSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, stopStack, type StackProcess } from '../deploy/stack-harness.js';

const MAX = 16 * 1024;

describe('proxyops up bounds its logs: size rotation with a kept count', () => {
  let stack: StackProcess;

  beforeAll(async () => {
    stack = await startStack(['--instances', '1', '--log-max-size', '16k', '--log-keep', '2']);
  }, 120_000);
  afterAll(() => stopStack(stack));

  it('rotates nginx and instance logs past the size, keeps two copies, and nginx writes to the new file', async () => {
    const logs = join(stack.dir, 'logs');
    const [instance] = (await stack.state()).upstreams.api!;
    // Named by port, or by slot for an instance behind a unix-socket slot: the state records which.
    const instanceLog = instance!.logFile ?? join(logs, `instance-${instance!.port}.log`);
    // Enough requests for several rotations of a 16 KiB log (a line is about 200-300 bytes).
    const deadline = Date.now() + 90_000;
    let sent = 0;
    while (
      Date.now() < deadline &&
      !(existsSync(join(logs, 'access.log.2')) && existsSync(`${instanceLog}.2`))
    ) {
      await Promise.all(
        Array.from({ length: 20 }, () =>
          fetch(`${stack.url}/health/ready?n=${sent++}`).then((r) => r.arrayBuffer()),
        ),
      );
    }
    expect(existsSync(join(logs, 'access.log.2')), `after ${sent} requests`).toBe(true);
    expect(existsSync(`${instanceLog}.2`)).toBe(true);
    // Keep three more rotations' worth going: never a third copy.
    for (let i = 0; i < 300; i++)
      await fetch(`${stack.url}/health/ready?m=${i}`).then((r) => r.arrayBuffer());
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // one check of the stack's rotation
    const names = await readdir(logs);
    expect(names.filter((n) => /\.log\.[3-9]$/.test(n))).toEqual([]);
    // Each kept copy holds at least one rotation size (what was written past it until the next check,
    // every 2 s, comes on top: its bound is the write rate, not the setting).
    for (const name of names.filter((n) => /\.log\.[12]$/.test(n)))
      expect((await stat(join(logs, name))).size, name).toBeGreaterThanOrEqual(MAX);
    // nginx reopened its log: a new request lands in access.log, not in a rotated copy.
    await fetch(`${stack.url}/health/ready?after-rotation=1`).then((r) => r.arrayBuffer());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await readFile(join(logs, 'access.log'), 'utf8')).toContain('after-rotation=1');
  }, 180_000);
});
