import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { superviseInstances } from '../../../proxy-config/stack/supervise-instances.js';

describe('superviseInstances', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-supervise-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('says a failure that repeats at every check once, not every second', async () => {
    // An exited instance to restart, and a spec that no longer parses: every check fails the same way.
    const exited = Number((await execa('sh', ['-c', 'echo $$'])).stdout);
    await writeFile(join(dir, 'spec.json'), '{ not json');
    await writeFile(
      join(dir, 'instances.json'),
      JSON.stringify({
        version: 1,
        upstreams: { api: [{ host: '127.0.0.1', port: 1, pid: exited, inUpstream: true }] },
        stack: {
          supervisorPid: process.pid,
          specPath: join(dir, 'spec.json'),
          nginxPidFile: join(dir, 'nginx.pid'),
          url: 'http://127.0.0.1:1',
          logsDir: dir,
        },
      }),
    );
    const said: string[] = [];
    const supervisor = superviseInstances(dir, (line) => said.push(line), 10);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await supervisor.stop();
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^supervising .*: .*spec\.json/);
  });
});
