import { execFileSync } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../../../proxy-config/shell/host/host.js';
import { createSshHost } from '../../../../proxy-config/shell/host/ssh-host.js';
import { describeHookRun, runHook } from '../../../../proxy-config/shell/process/run-hook.js';
import { startTestHosts, type TestHosts } from '../../../support/ssh-hosts.js';

let hosts: TestHosts;
let host: Host;
let log: string;
const previousConfig = process.env.PROXYOPS_SSH_CONFIG;

/** A hook script on the app host: its path there. */
async function hook(name: string, body: string): Promise<string> {
  const path = join(hosts.host('app1').dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return join(hosts.host('app1').mountPoint, name);
}

/**
 * Processes on the app host whose whole command line is `command` (one pid namespace: pgrep sees
 * them). Whole: a `sleep 420` elsewhere on the machine matched `sleep 42` and failed the test twice.
 */
function running(command: string): string[] {
  try {
    return execFileSync('pgrep', ['-fx', command]).toString().trim().split('\n');
  } catch {
    return [];
  }
}

beforeAll(async () => {
  hosts = await startTestHosts(['app1'], { trusted: true });
  process.env.PROXYOPS_SSH_CONFIG = hosts.sshConfig;
  host = createSshHost('app1');
  log = join(hosts.root, 'hooks.log');
}, 60_000);

afterAll(async () => {
  await host?.close();
  if (previousConfig === undefined) delete process.env.PROXYOPS_SSH_CONFIG;
  else process.env.PROXYOPS_SSH_CONFIG = previousConfig;
  for (const pid of [...running('sleep 41'), ...running('sleep 42')]) process.kill(Number(pid));
  await hosts?.teardown();
});

describe('a lifecycle hook run on an app host over ssh is bounded as one run here', () => {
  it('a hook that exits: its exit code and output, in the hook log', async () => {
    const argv = [await hook('fails', 'echo no such unit >&2; exit 3')];
    const ran = await runHook(argv, { boundMs: 5_000, logFile: log, on: host });
    expect(ran).toMatchObject({ exitCode: 3, timedOut: false });
    expect(describeHookRun(ran)).toBe('exited 3: no such unit');
    expect(await readFile(log, 'utf8')).toContain(`run on app1: ${argv[0]}\nno such unit\n`);
  });

  it('a hook that exited but left a process holding its output ends at the bound: timed out, one clear line, the channel closed', async () => {
    // The trial's faulty start script: its service's subshell inherits ssh's output and keeps it open.
    const argv = [await hook('leaves-child', 'echo starting; (sleep 41) & exit 0')];
    const started = Date.now();
    const ran = await runHook(argv, { boundMs: 1_000, logFile: log, on: host });
    const took = Date.now() - started;
    // The bound (1 s) and the kill 2 s after it, never the 41 s of what holds the output.
    expect(took).toBeGreaterThanOrEqual(3_000);
    expect(took).toBeLessThan(10_000);
    expect(ran).toMatchObject({ exitCode: null, timedOut: true });
    expect(describeHookRun(ran)).toMatch(
      /^was killed after \d+ ms: app1: its output was still open after 1 s \(the bound\): a service the hook starts must not write to the hook's output \(redirect it, as a unit file does\); the ssh channel was closed$/,
    );
    expect(await readFile(log, 'utf8')).toContain('starting\napp1: its output was still open');
    // No ssh client of this run is left here; the same connection still runs the next command.
    expect(execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)]).toString()).not.toMatch(
      /leaves-child/,
    );
    expect((await host.run(['echo', 'still here'])).stdout).toBe('still here\n');
  }, 20_000);

  it('a hook that runs past its bound is killed there: nothing of it outlives the bound', async () => {
    const argv = [await hook('slow', 'echo slow; exec sleep 42')];
    const started = Date.now();
    const ran = await runHook(argv, { boundMs: 1_000, logFile: log, on: host });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(ran).toMatchObject({ exitCode: null, timedOut: true });
    expect(describeHookRun(ran)).toMatch(/^was killed after \d+ ms/);
    // Killed over ssh on a host that may be as loaded as CI's: gone within 15 s, not 42.
    await expect.poll(() => running('sleep 42'), { timeout: 15_000 }).toEqual([]);
  }, 30_000);
});
