import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { readProcessIdentity } from '../../../proxy-config/shell/process/process-identity.js';
import { stopStackProcesses } from '../../../proxy-config/stack/up.js';
import { isAlive } from '../deploy/stack-harness.js';

describe('a stale state file whose pids now belong to other processes', () => {
  const strangers = [execa('sleep', ['60'], { reject: false }), execa('sleep', ['61'], { reject: false })];
  afterAll(() => {
    for (const s of strangers) s.kill('SIGKILL');
  });

  it('signals none of them, and forgets the state', async () => {
    const target = await mkdtemp(join(tmpdir(), 'proxyops-stale-'));
    const [a, b] = strangers.map((s) => s.pid!);
    const real = await readProcessIdentity(a!);
    expect(real?.cmdline).toBe('sleep 60');
    await writeFile(
      join(target, 'instances.json'),
      JSON.stringify({
        version: 1,
        upstreams: {
          api: [
            // Recorded for a process started earlier under the same pid: another start time.
            {
              host: '127.0.0.1',
              port: 1,
              pid: a,
              inUpstream: true,
              identity: { startTime: '1', cmdline: real!.cmdline },
            },
            // Recorded by an older proxyops, without an identity: nothing proves it is ours.
            { host: '127.0.0.1', port: 2, pid: b, inUpstream: true },
          ],
        },
      }),
    );
    await stopStackProcesses(target);
    for (const pid of [a!, b!]) expect(await isAlive(pid), `pid ${pid}`).toBe(true);
    await rm(target, { recursive: true, force: true });
  });
});
