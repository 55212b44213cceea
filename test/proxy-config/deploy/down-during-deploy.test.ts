import { existsSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adminToken,
  CLI,
  isAlive,
  runCli,
  SEED_USER,
  stackPids,
  startStack,
  type StackProcess,
} from './stack-harness.js';

interface StepCase {
  kind: string;
  exit: number;
  /** The abort's `rolledBack`; undefined: no abort (the round was finished). */
  rolledBack: boolean | undefined;
}

/** The steps of a slot round, in order; `down` arrives while the deploy is inside each. */
const SLOT_STEPS: StepCase[] = [
  // Nothing of the round has started: the new instance starts once released, then is stopped.
  { kind: 'start', exit: 1, rolledBack: false },
  // The new instance runs, not yet behind the slot: stopped, nothing else changed.
  { kind: 'wait-ready', exit: 1, rolledBack: false },
  { kind: 'swap', exit: 1, rolledBack: true },
  { kind: 'watch', exit: 1, rolledBack: true },
  // The old instance is told to stop: the round is finished rather than left half-way.
  { kind: 'signal', exit: 0, rolledBack: undefined },
  // The old instance is draining: its exit is waited for, then the stack stops.
  { kind: 'wait-exit', exit: 0, rolledBack: undefined },
];

/** The steps of a reload round: two config changes, each put back when `down` comes after it. */
const RELOAD_STEPS: StepCase[] = [
  { kind: 'start', exit: 1, rolledBack: false },
  { kind: 'wait-ready', exit: 1, rolledBack: false },
  { kind: 'add', exit: 1, rolledBack: true },
  { kind: 'watch', exit: 1, rolledBack: true },
  { kind: 'remove', exit: 1, rolledBack: true },
  { kind: 'confirm-idle', exit: 1, rolledBack: true },
  { kind: 'signal', exit: 0, rolledBack: undefined },
  { kind: 'wait-exit', exit: 0, rolledBack: undefined },
];

const PATHS = [
  { path: 'slot path', flags: [] as string[], steps: SLOT_STEPS },
  { path: 'reload path', flags: ['--no-slots'], steps: RELOAD_STEPS },
];

interface DeployEventLine {
  type: string;
  step?: { kind: string; index: number };
  outcome?: string;
  rolledBack?: boolean;
  reason?: string;
}

describe.each(PATHS)(
  'proxyops down during each step of a deploy ($path, the real stack)',
  ({ flags, steps }) => {
    let stack: StackProcess | undefined;
    let dir: string | undefined;
    afterAll(async () => {
      if (stack && stack.process.exitCode === null) stack.process.kill('SIGINT');
      await stack?.process;
      if (dir) await rm(join(dir, '..'), { recursive: true, force: true });
    });

    it.each(steps)(
      'down while the deploy is in $kind: the deploy ends first, nothing of the stack is left running or half-written, and the next up is clean',
      async ({ kind, exit, rolledBack }) => {
        // The stack the previous case started again (its "next up"), or a first one.
        if (!stack || stack.process.exitCode !== null)
          stack = await startStack(['--instances', '1', '--watch', '1', ...flags], {}, dir);
        dir = stack.dir;
        const target = join(dir, 'config');
        const before = await stackPids(stack);
        const [oldPid] = (await stack.state()).upstreams.api!.map((i) => i.pid!);

        // The deploy holds inside the step (after it started, before it acts) until it is interrupted:
        // its progress file says where it is, so `down` comes exactly then, without sleeping.
        // Readiness only: this is about what `down` leaves behind at each step, and the stack gets no traffic.
        const deploy = execa('node', [CLI, 'deploy', '--dir', dir, '--watch', 'readiness-only', '--json'], {
          reject: false,
          env: { PROXYOPS_DEPLOY_HOLD: kind },
        });
        const progressFile = join(target, 'deploy-progress.json');
        await expect
          .poll(async () => (await readFile(progressFile, 'utf8').catch(() => '{}')) as string, {
            timeout: 60_000,
            interval: 50,
          })
          .toMatch(new RegExp(`"kind":"${kind}","held":true`));
        const progress = JSON.parse(await readFile(progressFile, 'utf8')) as { pid: number };
        expect(progress.pid).toBe(deploy.pid);

        const down = await runCli(['down', '--dir', dir]);
        expect(down.exitCode, down.stdout + down.stderr).toBe(0);
        expect(down.stdout).toMatch(
          new RegExp(
            `a deploy \\(pid ${deploy.pid}\\) is at step \\d+ \\(${kind}\\): asking it to put its round back`,
          ),
        );
        // The deploy had ended before `down` returned: it was waited for, not left running.
        expect(await isAlive(deploy.pid!)).toBe(false);
        const result = await deploy;
        const events = result.stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as DeployEventLine);
        expect(result.exitCode, result.stdout + result.stderr).toBe(exit);
        const abort = events.find((e) => e.type === 'abort');
        if (rolledBack === undefined) expect(abort).toBeUndefined();
        else expect(abort, result.stdout).toMatchObject({ rolledBack });
        const started = events.find((e) => e.type === 'step-done' && e.step?.kind === 'start');
        const freshPid = Number(/\(pid (\d+)/.exec(String(started?.outcome))?.[1]);
        expect(freshPid).toBeGreaterThan(0);
        await stack.process;

        // Nothing of the stack runs: up, nginx (master and workers), the old and the new instance.
        for (const pid of [...before, oldPid!, freshPid])
          expect(await isAlive(pid), `pid ${pid}`).toBe(false);
        // Nothing half-written: no state, no progress, no lock, no socket name.
        for (const file of ['instances.json', 'instance-secrets.json', 'deploy-progress.json', 'deploy.lock'])
          expect(existsSync(join(target, file)), file).toBe(false);
        expect(await readdir(join(dir, 'slots'))).toEqual([]);

        // The next `up` in the same directory is clean: it serves, with one instance of its own.
        stack = await startStack(['--instances', '1', '--watch', '1', ...flags], {}, dir);
        const token = await adminToken();
        const answer = await fetch(`${stack.url}/users/${SEED_USER}`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(answer.status).toBe(200);
        const instances = (await stack.state()).upstreams.api!;
        expect(instances).toHaveLength(1);
        expect(await isAlive(instances[0]!.pid!)).toBe(true);
      },
      180_000,
    );
  },
);
