import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built CLI, as users run it. */
export const BUILT_CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  cwd?: string;
  /** Text piped in; without it (and without `stdinFile`) a pipe closed at once. */
  stdin?: string;
  /** A file redirected to standard input. */
  stdinFile?: string;
  /** No standard input at all (/dev/null). */
  noStdin?: boolean;
  /** Run as this uid (and gid): root only. */
  uid?: number;
  /** Another copy of the CLI (one another user can reach). */
  cli?: string;
  /** SIGINT after this long (a run that follows a log). */
  killAfterMs?: number;
}

/** Runs the built CLI (`node dist/cli/main.js ARGS`) as a separate process; its exit code and output. */
export function runBuiltCli(args: string[], options: CliRunOptions = {}): Promise<CliResult> {
  if (!existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: run npm run build first`);
  const fd = options.stdinFile ? openSync(options.stdinFile, 'r') : undefined;
  const child = spawn(process.execPath, [options.cli ?? BUILT_CLI, ...args], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stdio: [fd ?? (options.noStdin ? 'ignore' : 'pipe'), 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  if (fd !== undefined) closeSync(fd);
  else child.stdin?.end(options.stdin ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = options.killAfterMs ? setTimeout(() => child.kill('SIGINT'), options.killAfterMs) : undefined;
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
