import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import {
  matchSshFailure,
  parseSshConfigDump,
  type SshDestination,
} from '../../core/host/describe-ssh-failure.js';
import { toShellCommand } from '../../core/host/quote-shell.js';
import { ProxyopsError } from '../../core/errors.js';
import type { ProcessInfo } from '../process/proc-process-tree.js';
import type { Host, HostSession, HostStat, RunResult } from './host.js';
import { collect } from './local-host.js';

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

  const startSsh = (args: string[], argv: readonly string[]): HostSession => {
    const child = spawn('ssh', [...args, '--', destination, toShellCommand(argv)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
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
  const open = (argv: readonly string[]): HostSession => {
    const pending = options().then((args) => startSsh(args, argv));
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

  const run = (argv: readonly string[], input?: string) => collect(open(argv), input);

  const host: Host = {
    name: destination,
    run: (argv, runOptions = {}) => run(argv, runOptions.input),
    open,
    async readFile(path) {
      const result = await run(['cat', '--', path]);
      if (result.exitCode !== 0)
        throw new ProxyopsError(
          'HOST_FILE_UNREADABLE',
          `${destination}: cannot read ${path}: ${lastLine(result)}`,
        );
      return result.stdout;
    },
    async writeFileAtomic(path, text, mode = 0o644) {
      const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
      // The text goes over stdin; the script is fixed and takes the paths as its arguments.
      const script =
        'umask 077 && cat > "$2" && chmod "$3" -- "$2" && mv -f -- "$2" "$1" || { rm -f -- "$2"; exit 1; }';
      const result = await run(['sh', '-c', script, 'sh', path, temp, mode.toString(8)], text);
      if (result.exitCode !== 0)
        throw new ProxyopsError(
          'HOST_FILE_UNWRITABLE',
          `${destination}: cannot write ${path}: ${lastLine(result)}`,
        );
    },
    async stat(path) {
      const result = await run(['stat', '-c', '%F\t%s\t%a', '--', path]);
      if (result.exitCode !== 0) {
        if (/No such file or directory/.test(result.stderr)) return undefined;
        throw new ProxyopsError(
          'HOST_FILE_UNREADABLE',
          `${destination}: cannot stat ${path}: ${lastLine(result)}`,
        );
      }
      const [kind = '', size = '0', mode = '0'] = result.stdout.trim().split('\t');
      return { kind: toKind(kind), size: Number(size), mode: Number.parseInt(mode, 8) };
    },
    async signal(pid, signal) {
      if (!Number.isInteger(pid) || pid <= 0) throw new ProxyopsError('BAD_OPTION', `not a pid: ${pid}`);
      const result = await run(['kill', '-s', signal.replace(/^SIG/, ''), String(pid)]);
      if (result.exitCode !== 0)
        throw new ProxyopsError(
          'HOST_SIGNAL_FAILED',
          `${destination}: cannot send ${signal} to pid ${pid}: ${lastLine(result)}`,
        );
    },
    async listProcesses() {
      // Builtins and one tr a process: a host need not have procps. NULs and newlines of a command
      // line become spaces, tabs too, so the first tab of a line ends the command line.
      const script =
        'cd /proc && for p in [0-9]*; do { read -r s < "$p/stat"; } 2>/dev/null || continue; ' +
        'c=$(tr "\\000\\n\\t" "   " < "$p/cmdline" 2>/dev/null); printf "%s\\t%s\\n" "$c" "$s"; done';
      const result = await run(['sh', '-c', script]);
      return result.stdout.split('\n').flatMap(parseProcessLine);
    },
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
  return { ...parseSshConfigDump(dump), connectTimeout: /^connecttimeout \d/m.test(dump) };
}

function exitOf(child: ReturnType<typeof spawn>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    child.once('error', (error) =>
      reject(new ProxyopsError('SSH_MISSING', `cannot run ssh (${error.message}): install openssh-client`)),
    );
    child.once('close', (code) => resolve({ exitCode: code ?? 255, stdout: '', stderr: '' }));
  });
}

function lastLine(result: RunResult): string {
  return result.stderr.trim().split('\n').at(-1)?.trim() || `exit ${result.exitCode}`;
}

function toKind(text: string): HostStat['kind'] {
  if (text.startsWith('regular')) return 'file';
  if (text === 'directory') return 'directory';
  if (text === 'symbolic link') return 'symlink';
  return 'other';
}

function parseProcessLine(line: string): ProcessInfo[] {
  const tab = line.indexOf('\t');
  if (tab < 0) return [];
  const stat = line.slice(tab + 1);
  const pid = Number.parseInt(stat, 10);
  // The command name in parentheses may hold anything; the fields after the last ')' are fixed.
  const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return [];
  return [{ pid, ppid, cmdline: line.slice(0, tab).trim() }];
}
