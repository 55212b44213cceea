import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { ProxyopsError } from '../../core/errors.js';
import { isAlive } from './proc-process-tree.js';
import { isSameProcess, readProcessIdentity, type ProcessIdentity } from './process-identity.js';
import type { InstanceCommand } from '../../core/deploy/instance-command.js';

/** A started instance: its pid and where its output goes. */
export interface StartedInstance {
  pid: number;
  logFile: string;
  /** Read right after the start; undefined if it exited at once. */
  identity?: ProcessIdentity;
}

/** How a stop went. */
export interface StopResult {
  exited: boolean;
  /** SIGKILL was needed after the bound. */
  forced: boolean;
  ms: number;
}

const POLL_MS = 20;
/**
 * The caller's variables an instance never inherits: the API's settings (PROXYOPS_*, but the signing
 * secret, which is never written to the state) and its database and Redis; the stack's state holds those.
 */
function isStackSetting(name: string): boolean {
  return (
    (name.startsWith('PROXYOPS_') && name !== 'PROXYOPS_JWT_SECRET') ||
    name === 'DATABASE_URL' ||
    name === 'REDIS_URL'
  );
}
const KILL_WAIT_MS = 2_000;

/**
 * Starts an instance in its own process group with its output appended to `logFile`. It outlives
 * this process (a deploy exits, the instance keeps serving) and is stopped later by pid.
 */
export async function startInstance(
  command: InstanceCommand,
  options: { logFile: string; env?: Record<string, string>; stopSignal?: NodeJS.Signals; cwd?: string },
): Promise<StartedInstance> {
  // The instance writes straight to the file (no pipe through this process, which may exit first).
  const fd = openLog(options.logFile);
  // The stack's settings only: an API setting in the caller's environment must not reach the instance.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !isStackSetting(entry[0]),
    ),
  );
  const env: Record<string, string> = { ...inherited, ...options.env, ...command.env };
  try {
    const child = execa(command.file, command.args, {
      env,
      extendEnv: false,
      stdio: ['ignore', fd, fd],
      detached: true,
      reject: false,
      killSignal: options.stopSignal ?? 'SIGQUIT',
      forceKillAfterDelay: 10_000,
    });
    child.unref();
    if (child.pid === undefined) {
      const result = await child;
      throw new ProxyopsError(
        'INSTANCE_START_FAILED',
        `cannot start ${command.file}: ${result.originalMessage || result.shortMessage}`,
        { cause: result },
      );
    }
    // Read once the child has exec'd its command (before that, /proc shows this process's command line).
    const expected = [command.file, ...command.args].join(' ');
    let identity = await readProcessIdentity(child.pid);
    for (let i = 0; i < 25 && identity && identity.cmdline !== expected; i++) {
      await sleep(POLL_MS);
      identity = await readProcessIdentity(child.pid);
    }
    return { pid: child.pid, logFile: options.logFile, ...(identity ? { identity } : {}) };
  } finally {
    closeSync(fd);
  }
}

/** Opens (appends to) an instance log; execa's types take file descriptors only as number literals. */
function openLog(path: string): 3 {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    return openSync(path, 'a') as 3;
  } catch (error) {
    throw new ProxyopsError(
      'INSTANCE_START_FAILED',
      `cannot open the instance log ${path}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/** True while `pid` runs (a zombie counts as gone: it only waits for its parent to reap it). */
export async function isProcessAlive(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return false;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // No stat: reaped between the two looks (gone now), or no /proc to read (trust the signal).
  if (stat === '') return isAlive(pid);
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** Waits up to `boundMs` for `pid` to exit; true when it did. */
export async function waitForExit(pid: number, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    if (!(await isProcessAlive(pid))) return true;
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}

/** Sends `signal` to `pid`; ESRCH (already gone) is not an error. */
export function signalInstance(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw new ProxyopsError(
      'INSTANCE_SIGNAL_FAILED',
      `cannot send ${signal} to pid ${pid}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Signals `pid` and waits up to `boundMs` for it to exit, then SIGKILLs it. */
export async function stopInstance(
  pid: number,
  signal: NodeJS.Signals,
  boundMs: number,
): Promise<StopResult> {
  const started = Date.now();
  if (!signalInstance(pid, signal)) return { exited: true, forced: false, ms: 0 };
  if (await waitForExit(pid, boundMs)) return { exited: true, forced: false, ms: Date.now() - started };
  signalInstance(pid, 'SIGKILL');
  const exited = await waitForExit(pid, KILL_WAIT_MS);
  return { exited, forced: true, ms: Date.now() - started };
}

/** A process proxyops recorded: its pid and the identity read when it started. */
export interface RecordedProcess {
  pid?: number | undefined;
  identity?: ProcessIdentity | undefined;
}

/**
 * What a recorded pid is now: `ours` while it still is the process proxyops started (same start time
 * and command line), `gone` when nothing runs under it, `stranger` when another process has it (or
 * nothing was recorded that could prove it is ours).
 */
export async function recordedStatus(record: RecordedProcess): Promise<'ours' | 'gone' | 'stranger'> {
  if (record.pid === undefined || !(await isProcessAlive(record.pid))) return 'gone';
  return (await isSameProcess(record.pid, record.identity)) ? 'ours' : 'stranger';
}

/** Signals a recorded process only while it is still ours (never a stranger that took its pid). */
export async function signalRecorded(
  record: RecordedProcess,
  signal: NodeJS.Signals,
): Promise<'sent' | 'gone' | 'stranger'> {
  const status = await recordedStatus(record);
  if (status !== 'ours') return status;
  return signalInstance(record.pid!, signal) ? 'sent' : 'gone';
}

/** `stopInstance` for a recorded process: a stranger or a gone pid is left alone (`undefined`). */
export async function stopRecorded(
  record: RecordedProcess,
  signal: NodeJS.Signals,
  boundMs: number,
): Promise<StopResult | undefined> {
  if ((await recordedStatus(record)) !== 'ours') return undefined;
  return stopInstance(record.pid!, signal, boundMs);
}
