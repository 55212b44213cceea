import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  matchSshFailure,
  parseSshConfigDump,
  type SshDestination,
} from '../../core/host/describe-ssh-failure.js';
import { toShellCommand } from '../../core/host/quote-shell.js';
import { ProxyopsError } from '../../core/errors.js';
import type { Host, HostSession, RunResult } from './host.js';
import { collect, endOnAbort } from './local-host.js';

/** An ssh destination proxyops accepts: no option (leading `-`), no space or control character. */
const DESTINATION = /^[A-Za-z0-9_.@:[\]%+-]+$/;

/** The ssh client config to read instead of ~/.ssh/config (`ssh -F`), for CI and tests. */
const CONFIG_ENV = 'PROXYOPS_SSH_CONFIG';

/**
 * A host over the system's OpenSSH client: the user's ~/.ssh/config, keys, agent and jump hosts
 * apply. One control connection per host (ControlMaster, its socket in a private temp directory)
 * carries every command. Host keys are always checked, whatever the config says; ssh never prompts.
 */
export function createSshHost(destination: string): Host {
  if (!DESTINATION.test(destination) || destination.startsWith('-'))
    throw new ProxyopsError(
      'BAD_OPTION',
      `${JSON.stringify(destination)} is not an ssh destination (a Host of ~/.ssh/config, or user@host)`,
    );
  const config = process.env[CONFIG_ENV];
  let controlDir: string | undefined;
  let ready: Promise<string[]> | undefined;

  /** Everything before the destination; the first call makes the control directory and connects. */
  const options = (): Promise<string[]> =>
    (ready ??= (async () => {
      controlDir = await mkdtemp(join(tmpdir(), 'proxyops-ssh-'));
      const where = await resolveDestination(destination, config);
      const args = [
        ...(config ? ['-F', config] : []),
        ...['-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes'],
        ...['-o', 'ControlMaster=auto', '-o', `ControlPath=${controlDir}/%C`, '-o', 'ControlPersist=60'],
        ...['-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=2', '-T'],
        ...(where.connectTimeout ? [] : ['-o', 'ConnectTimeout=10']),
      ];
      // Connect once before anything runs in parallel, so every later command rides this connection.
      const first = await collect(startSsh(args, ['true']));
      if (first.exitCode !== 0) throw sshFailure(destination, where, first.stderr);
      return args;
    })());

  const startSsh = (args: string[], argv: readonly string[], signal?: AbortSignal): HostSession => {
    const child = spawn('ssh', [...args, '--', destination, toShellCommand(argv)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // ssh ending closes the channel: the command there sees its output closed, nothing waits on it here.
    endOnAbort(child, signal);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const done = new Promise<RunResult>((resolve, reject) => {
      child.once('error', (error) =>
        reject(new ProxyopsError('SSH_MISSING', `cannot run ssh (${error.message}): install openssh-client`)),
      );
      child.once('close', (code) => resolve({ exitCode: code ?? 255, stdout: '', stderr }));
    });
    return { stdin: child.stdin, stdout: child.stdout, done };
  };

  /**
   * A session whose `done` rejects when ssh itself failed: exit 255 and a failure ssh names (a command
   * killed by a signal also ends in 255, without such a line: that one is the command's result).
   */
  const open = (argv: readonly string[], signal?: AbortSignal): HostSession => {
    const pending = options().then((args) => startSsh(args, argv, signal));
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const done = pending.then(async (session) => {
      stdin.pipe(session.stdin);
      session.stdin.on('error', () => undefined);
      session.stdout.pipe(stdout);
      const result = await session.done;
      if (result.exitCode === 255 && matchSshFailure(result.stderr))
        throw sshFailure(destination, await resolveDestination(destination, config), result.stderr);
      return result;
    });
    done.catch(() => stdout.end());
    return { stdin, stdout, done };
  };

  const host: Host = {
    name: destination,
    run: (argv, runOptions = {}) => collect(open(argv, runOptions.signal), runOptions.input),
    open: (argv) => open(argv),
    async close() {
      if (!ready) return;
      const args = await ready.catch(() => undefined);
      if (args) await collect(startSsh([...args, '-O', 'exit'], ['true'])).catch(() => undefined);
      if (controlDir) await rm(controlDir, { recursive: true, force: true });
      ready = undefined;
    },
  };
  return host;
}

/** The error for ssh's own failure: a known kind in one line, else ssh's last line. */
function sshFailure(destination: string, where: SshDestination, stderr: string): ProxyopsError {
  const row = matchSshFailure(stderr);
  if (row)
    return new ProxyopsError(row.code, row.message(destination, where), {
      details: { stderr, host: destination },
    });
  const last = stderr.trim().split('\n').at(-1)?.trim() ?? '';
  return new ProxyopsError('SSH_FAILED', `${destination}: ssh failed: ${last || 'exit 255'}`, {
    details: { stderr, host: destination },
  });
}

async function resolveDestination(
  destination: string,
  config: string | undefined,
): Promise<SshDestination & { connectTimeout: boolean }> {
  const child = spawn('ssh', [...(config ? ['-F', config] : []), '-G', '--', destination], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const result = await collect({ stdin: new PassThrough(), stdout: child.stdout, done: exitOf(child) });
  const dump = result.stdout;
  return {
    ...parseSshConfigDump(dump),
    ...(config ? { configFile: config } : {}),
    connectTimeout: /^connecttimeout \d/m.test(dump),
  };
}

function exitOf(child: ReturnType<typeof spawn>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    child.once('error', (error) =>
      reject(new ProxyopsError('SSH_MISSING', `cannot run ssh (${error.message}): install openssh-client`)),
    );
    child.once('close', (code) => resolve({ exitCode: code ?? 255, stdout: '', stderr: '' }));
  });
}
