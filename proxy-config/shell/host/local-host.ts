import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import { describeErrno } from '../describe-path.js';
import { listProcesses } from '../process/proc-process-tree.js';
import { sendSignal } from '../process/signal-process.js';
import type { Host, HostSession, HostStat, RunResult } from './host.js';

/** This machine through the host seam: Node's own file and process calls. */
export function createLocalHost(): Host {
  return {
    name: 'this machine',
    run: (argv, options = {}) => collect(start(argv), options.input),
    open: (argv) => start(argv),
    async readFile(path) {
      try {
        return await readFile(path, 'utf8');
      } catch (error) {
        throw new ProxyopsError('HOST_FILE_UNREADABLE', `cannot read ${path}: ${describeErrno(error)}`, {
          cause: error,
        });
      }
    },
    async writeFileAtomic(path, text, mode = 0o644) {
      const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
      try {
        await writeFile(temp, text, { mode });
        await rename(temp, path);
      } catch (error) {
        await rm(temp, { force: true });
        throw new ProxyopsError('HOST_FILE_UNWRITABLE', `cannot write ${path}: ${describeErrno(error)}`, {
          cause: error,
        });
      }
    },
    async stat(path) {
      try {
        const found = await lstat(path);
        const kind: HostStat['kind'] = found.isSymbolicLink()
          ? 'symlink'
          : found.isDirectory()
            ? 'directory'
            : found.isFile()
              ? 'file'
              : 'other';
        return { kind, size: found.size, mode: found.mode & 0o7777 };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    signal(pid, signal) {
      try {
        sendSignal(pid, signal);
      } catch (error) {
        return Promise.reject(
          new ProxyopsError('HOST_SIGNAL_FAILED', (error as Error).message, { cause: error }),
        );
      }
      return Promise.resolve();
    },
    listProcesses,
    close: () => Promise.resolve(),
  };
}

function start(argv: readonly string[]): HostSession {
  const [command, ...args] = argv;
  const child = spawn(command!, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<RunResult>((resolve, reject) => {
    child.once('error', (error) =>
      reject(new ProxyopsError('HOST_COMMAND_FAILED', `cannot run ${command}: ${describeErrno(error)}`)),
    );
    child.once('close', (code, signal) =>
      resolve({ exitCode: code ?? (signal ? 128 : 1), stdout: '', stderr }),
    );
  });
  return { stdin: child.stdin, stdout: child.stdout, done };
}

/** Feeds `input`, gathers stdout, and settles when the command ends. */
export async function collect(session: HostSession, input?: string): Promise<RunResult> {
  let stdout = '';
  session.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  // A command that ends without reading its stdin closes the pipe: not our failure.
  session.stdin.on('error', () => undefined);
  session.stdin.end(input ?? '');
  const result = await session.done;
  return { ...result, stdout };
}
