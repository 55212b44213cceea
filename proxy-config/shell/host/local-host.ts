import { spawn, type ChildProcess } from 'node:child_process';
import { ProxyopsError } from '../../core/errors.js';
import { describeErrno } from '../describe-path.js';
import type { Host, HostSession, RunResult } from './host.js';

/** This machine through the host seam: commands run as child processes here. */
export function createLocalHost(): Host {
  return {
    name: 'this machine',
    run: (argv, options = {}) => collect(start(argv, options.signal), options.input),
    open: (argv) => start(argv),
    close: () => Promise.resolve(),
  };
}

function start(argv: readonly string[], signal?: AbortSignal): HostSession {
  const [command, ...args] = argv;
  const child = spawn(command!, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  endOnAbort(child, signal);
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

/** SIGTERM to `child` once `signal` aborts (never spawn's own `signal`: that one errors instead of closing). */
export function endOnAbort(child: ChildProcess, signal: AbortSignal | undefined): void {
  if (!signal) return;
  const end = () => child.kill('SIGTERM');
  if (signal.aborted) end();
  else signal.addEventListener('abort', end, { once: true });
  child.once('close', () => signal.removeEventListener('abort', end));
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
