import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { DATABASE_URL } from '../../support/services.js';
import { isAlive, runCli, startStack, type StackProcess } from './stack-harness.js';

const RECORDER = join(import.meta.dirname, 'fixtures', 'signal-recorder.mjs');

/** A bystander that writes down every signal it gets (SIGKILL and SIGSTOP: it would be dead or stopped). */
async function startBystander(file: string): Promise<{ process: ResultPromise; pid: number }> {
  const child = execa('node', [RECORDER, file], { reject: false });
  await expect.poll(() => readFile(file, 'utf8').catch(() => undefined)).toBe('');
  return { process: child, pid: child.pid! };
}

async function untouched(pid: number, file: string): Promise<void> {
  expect(await readFile(file, 'utf8'), `signals received by pid ${pid}`).toBe('');
  expect(await isAlive(pid), `pid ${pid} alive`).toBe(true);
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  expect(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3), `pid ${pid} state`).not.toBe('T');
}

describe('a state file whose pids now belong to other processes: deploy, down and up signal none of them', () => {
  let stack: StackProcess | undefined;
  const bystanders: Array<{ process: ResultPromise; pid: number }> = [];
  const leftovers: number[] = [];
  afterAll(async () => {
    for (const b of bystanders) b.process.kill('SIGKILL');
    for (const pid of leftovers) if (await isAlive(pid)) process.kill(pid, 'SIGKILL');
    if (stack && stack.process.exitCode === null) {
      process.kill(stack.process.pid!, 'SIGCONT');
      stack.process.kill('SIGINT');
    }
    await stack?.process;
    if (stack) await rm(join(stack.dir, '..'), { recursive: true, force: true });
  });

  it('leaves the bystanders alone and still replaces, stops and restarts the stack', async () => {
    // On the PostgreSQL server, so `up` (which serves the embedded database) can be frozen below.
    stack = await startStack(['--instances', '1', '--watch', '0.5'], { DATABASE_URL });
    const { dir } = stack;
    const statePath = join(dir, 'config', 'instances.json');
    const instanceFile = join(dir, '..', 'instance-bystander.log');
    const supervisorFile = join(dir, '..', 'supervisor-bystander.log');
    const instance = await startBystander(instanceFile);
    const supervisor = await startBystander(supervisorFile);
    bystanders.push(instance, supervisor);

    // The recorded pids now name the bystanders; the identities recorded are the real processes'
    // (their start times differ), as when the pids were reused after the stack's processes died.
    // `up` frozen: its supervision would rightly take the bystander for an exited instance and start
    // another in its place; this is about what deploy and down do with the pids.
    process.kill(stack.process.pid!, 'SIGSTOP');
    const state = JSON.parse(await readFile(statePath, 'utf8'));
    const real = { instance: state.upstreams.api[0].pid as number, up: stack.process.pid! };
    leftovers.push(real.instance);
    state.upstreams.api[0].pid = instance.pid;
    state.stack.supervisorPid = supervisor.pid;
    await writeFile(statePath, JSON.stringify(state));

    // Readiness only: this is about which pids a deploy signals, and the frozen stack gets no traffic to judge.
    const deploy = await runCli(['deploy', '--dir', dir, '--watch', 'readiness-only', '--json']);
    expect(deploy.exitCode, deploy.stdout + deploy.stderr).toBe(0);
    const outcomes = deploy.events.filter((e) => e.type === 'step-done').map((e) => String(e.outcome));
    expect(outcomes.join('\n')).toMatch(
      new RegExp(`the old process \\(pid ${instance.pid}\\) is not the one proxyops started any more`),
    );
    await untouched(instance.pid, instanceFile);
    await untouched(supervisor.pid, supervisorFile);
    // The new instance serves behind the slot.
    expect((await fetch(`${stack.url}/health/ready`)).status).toBe(200);
    const fresh = (JSON.parse(await readFile(statePath, 'utf8')) as typeof state).upstreams.api[0].pid;
    expect(fresh).not.toBe(instance.pid);

    const down = await runCli(['down', '--dir', dir]);
    expect(down.exitCode, down.stdout + down.stderr).toBe(0);
    expect(down.stdout).toContain(`pid ${supervisor.pid} is not the proxyops up that started this stack`);
    await untouched(instance.pid, instanceFile);
    await untouched(supervisor.pid, supervisorFile);
    // What proxyops did start, and recorded, was stopped.
    expect(await isAlive(fresh)).toBe(false);

    // The real `up` was not signalled by `down` (the state did not name it): stop it as its user would.
    process.kill(stack.process.pid!, 'SIGCONT');
    stack.process.kill('SIGINT');
    await stack.process;
    expect(await isAlive(real.up)).toBe(false);

    // `up` on a stale state naming the bystanders: neither refused as a running stack nor signalled.
    delete state.instanceSecrets;
    await writeFile(statePath, JSON.stringify(state));
    stack = await startStack(['--instances', '1', '--watch', '0.5'], { DATABASE_URL }, dir);
    expect((await fetch(`${stack.url}/health/ready`)).status).toBe(200);
    await untouched(instance.pid, instanceFile);
    await untouched(supervisor.pid, supervisorFile);
    const stopped = await runCli(['down', '--dir', dir]);
    expect(stopped.exitCode, stopped.stdout + stopped.stderr).toBe(0);
    await stack.process;
    await untouched(instance.pid, instanceFile);
    await untouched(supervisor.pid, supervisorFile);
  }, 240_000);
});
