import { closeSync, mkdirSync, openSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { execa } from 'execa';
import { ProxyopsError } from '../../core/errors.js';
import { formatArgv } from '../../core/deploy/instance-command.js';
import { fileSize, readFileRange } from '../logs/read-file-range.js';
import type { Host } from '../host/host.js';

/** How a lifecycle hook ran. */
export interface HookRun {
  /** The exit code; null when it was killed (by the bound, or a signal). */
  exitCode: number | null;
  timedOut: boolean;
  ms: number;
  /** The last of its output (stdout and stderr together), for the one-line reason of a failure. */
  tail: string;
}

const TAIL_BYTES = 400;

/** How long after its bound a hook still running is killed (SIGKILL), here or on its host. */
const KILL_AFTER_MS = 2_000;

/**
 * Runs one hook argv (no shell: each argument stays one) and waits for it, for at most `boundMs`
 * (then SIGTERM, and SIGKILL 2 s later). Its output is appended to `logFile` after a line naming the
 * hook: a file, not a pipe, so a service the hook leaves running in the background (a plain script's
 * `app &`) cannot keep the hook from ending by holding our pipe open.
 */
export async function runHook(
  argv: readonly string[],
  options: { boundMs: number; logFile: string; on?: Host },
): Promise<HookRun> {
  if (options.on) return runRemoteHook(argv, { ...options, on: options.on });
  const started = Date.now();
  const [file, ...args] = argv;
  await appendLine(options.logFile, `${new Date().toISOString()} run: ${formatArgv(argv)}\n`);
  const from = await fileSize(options.logFile);
  const fd = openSync(options.logFile, 'a') as 3;
  try {
    const result = await execa(file!, args, {
      reject: false,
      stdio: ['ignore', fd, fd],
      timeout: options.boundMs,
      forceKillAfterDelay: KILL_AFTER_MS,
    });
    const end = await fileSize(options.logFile);
    const written = (await readFileRange(options.logFile, Math.max(from, end - TAIL_BYTES), end)).trim();
    const failedToRun = result.failed && result.exitCode === undefined && !result.timedOut;
    return {
      exitCode: result.exitCode ?? null,
      timedOut: result.timedOut,
      ms: Date.now() - started,
      tail: written || (failedToRun ? (result.originalMessage ?? result.shortMessage ?? '') : ''),
    };
  } finally {
    closeSync(fd);
  }
}

/**
 * Runs a hook on another host over ssh with the same bound: coreutils `timeout` there (TERM, KILL
 * 2 s later) so nothing outlives it, and here the ssh channel closed once the kill is due, so a
 * process the hook left holding its output (a service started with `&`, its output not redirected)
 * cannot keep the round waiting. Its output comes back and goes into `logFile` here.
 */
async function runRemoteHook(
  argv: readonly string[],
  options: { boundMs: number; logFile: string; on: Host },
): Promise<HookRun> {
  const started = Date.now();
  await appendLine(
    options.logFile,
    `${new Date().toISOString()} run on ${options.on.name}: ${formatArgv(argv)}\n`,
  );
  const seconds = String(Math.max(1, Math.ceil(options.boundMs / 1000)));
  const bound = AbortSignal.timeout(Number(seconds) * 1000 + KILL_AFTER_MS);
  const result = await options.on
    .run(['timeout', '-k', String(KILL_AFTER_MS / 1000), seconds, ...argv], { signal: bound })
    // ssh ended by the bound is the hook's result below, never a lost host.
    .catch((error: unknown) => {
      if (bound.aborted) return { exitCode: 255, stdout: '', stderr: '' };
      throw error;
    });
  const output = `${result.stdout}${result.stderr}`;
  // The channel still open at the bound: the hook, or what it left running, holds its output.
  const held = bound.aborted
    ? `${options.on.name}: its output was still open after ${seconds} s (the bound): a service the hook starts must not write to the hook's output (redirect it, as a unit file does); the ssh channel was closed`
    : '';
  const logged = `${output}${output && !output.endsWith('\n') ? '\n' : ''}${held ? `${held}\n` : ''}`;
  if (logged) await appendFile(options.logFile, logged);
  // timeout(1) exits 124 when the bound ended the hook, 137 when its KILL did.
  const timedOut = held !== '' || result.exitCode === 124 || result.exitCode === 137;
  return {
    exitCode: timedOut ? null : result.exitCode,
    timedOut,
    ms: Date.now() - started,
    tail: held || output.slice(-TAIL_BYTES).trim(),
  };
}

async function appendLine(path: string, line: string): Promise<void> {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    await appendFile(path, line);
  } catch (error) {
    throw new ProxyopsError(
      'INSTANCE_START_FAILED',
      `cannot write the hook log ${path}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/** A hook run as one clause: `exited 1: no such unit`, `was killed after 30000 ms`. */
export function describeHookRun(run: HookRun): string {
  const how = run.timedOut
    ? `was killed after ${run.ms} ms`
    : run.exitCode === null
      ? 'was killed'
      : `exited ${run.exitCode}`;
  const last = run.tail.split('\n').at(-1)?.trim();
  return last ? `${how}: ${last}` : how;
}
