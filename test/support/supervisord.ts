import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';

/** A real supervisord on its own unix socket under a test's directory. */
export interface Supervisord {
  conf: string;
  /** Runs supervisorctl against it; never rejects. */
  ctl(...args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** The pid supervisord reports for a program (0 when it does not run). */
  pidOf(program: string): Promise<number>;
  /** Stops every program, then supervisord itself. */
  stop(): Promise<void>;
}

/** A supervisord value: `%` starts its interpolation. */
export const sv = (value: string): string => value.replaceAll('%', '%%');

/**
 * Writes `root/supervisord.conf` with `programs` (each `[program:NAME]` and its lines, not started
 * by themselves) and runs supervisord in the foreground; resolves once supervisorctl reaches it.
 */
export async function startSupervisord(
  root: string,
  programs: Record<string, string[]>,
): Promise<Supervisord> {
  const conf = join(root, 'supervisord.conf');
  const socket = join(root, 'supervisor.sock');
  await writeFile(
    conf,
    [
      '[unix_http_server]',
      `file=${sv(socket)}`,
      'chmod=0700',
      '[supervisord]',
      `logfile=${sv(join(root, 'supervisord.log'))}`,
      `pidfile=${sv(join(root, 'supervisord.pid'))}`,
      `childlogdir=${sv(root)}`,
      '[rpcinterface:supervisor]',
      'supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface',
      '[supervisorctl]',
      `serverurl=unix://${sv(socket)}`,
      ...Object.entries(programs).flatMap(([name, lines]) => [
        `[program:${name}]`,
        'autostart=false',
        'autorestart=false',
        ...lines,
      ]),
      '',
    ].join('\n'),
  );
  const daemon: ResultPromise = execa('supervisord', ['-n', '-c', conf], { reject: false });
  const ctl = async (...args: string[]) => {
    const run = await execa('supervisorctl', ['-c', conf, ...args], { reject: false });
    return { exitCode: run.exitCode ?? -1, stdout: run.stdout, stderr: run.stderr };
  };
  for (let tries = 0; !/^\d+$/.test((await ctl('pid')).stdout); tries++) {
    if (tries > 200) throw new Error('supervisord did not come up');
    await sleep(100);
  }
  return {
    conf,
    ctl,
    pidOf: async (program) => Number((await ctl('pid', program)).stdout.trim()) || 0,
    async stop() {
      await ctl('stop', 'all');
      daemon.kill('SIGTERM');
      await daemon;
    },
  };
}
