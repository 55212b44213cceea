import { resolve } from 'node:path';
import { execa, ExecaError } from 'execa';
import { ProxyopsError } from '../../core/errors.js';
import { findNginxBinary } from './nginx-binary.js';

/** Where an nginx instance lives: its main config file and its prefix (relative paths resolve there). */
export interface NginxTarget {
  confPath: string;
  /** Absent: the binary's compiled-in prefix (a hand-written tree tested with no master running). */
  prefix?: string;
  /** The nginx binary to run (a live master's own); default the one on PATH. */
  binary?: string;
  /** Error log used before the config's own is opened (nginx -e); defaults to PREFIX/logs/error.log. */
  startupErrorLog?: string;
}

/** The signals `nginx -s` sends to a running master. */
export type NginxSignal = 'reload' | 'reopen' | 'quit' | 'stop';

const TIMEOUT_MS = 15_000;

function baseArgs(target: NginxTarget): string[] {
  // nginx resolves a relative -c or -e against the prefix, not the working directory: make them absolute.
  const prefix = target.prefix === undefined ? [] : ['-p', `${resolve(target.prefix)}/`];
  const args = [...prefix, '-c', resolve(target.confPath)];
  return target.startupErrorLog ? [...args, '-e', resolve(target.startupErrorLog)] : args;
}

async function runNginx(
  target: NginxTarget,
  extra: string[],
  code: string,
  what: string,
  stdout: 'pipe' | 'ignore' = 'pipe',
  cancel?: AbortSignal,
): Promise<string> {
  try {
    const result = await execa(target.binary ?? findNginxBinary(), [...baseArgs(target), ...extra], {
      stdout,
      ...(cancel ? { cancelSignal: cancel } : {}),
      timeout: TIMEOUT_MS,
      forceKillAfterDelay: 2_000,
      all: true,
    });
    return result.all ?? '';
  } catch (error) {
    if (error instanceof ExecaError) {
      const output = (error.all ?? error.shortMessage).trim();
      throw new ProxyopsError(code, `${what} failed: ${output}`, { cause: error, details: { output } });
    }
    throw error;
  }
}

/**
 * Runs `nginx -t` on a config; resolves with nginx's own output, throws NGINX_TEST_FAILED with it
 * (also when `cancel` stops it: nginx is killed).
 */
export function testNginxConfig(target: NginxTarget, cancel?: AbortSignal): Promise<string> {
  // nginx -t reports on stderr. Its stdout must not be Node's socket pair: a config logging to
  // /dev/stdout (container mode) cannot open a socket that way (ENXIO), so it gets /dev/null.
  return runNginx(target, ['-t', '-q'], 'NGINX_TEST_FAILED', 'nginx -t', 'ignore', cancel);
}

/** Starts an nginx master that daemonizes; the config's `pid` directive says where its pid goes. */
export async function startNginx(target: NginxTarget): Promise<void> {
  await runNginx(target, [], 'NGINX_START_FAILED', 'starting nginx');
}

/** Sends a signal to the running master through `nginx -s`, which reads the config's pid file. */
export async function signalNginx(target: NginxTarget, signal: NginxSignal): Promise<void> {
  await runNginx(target, ['-s', signal], 'NGINX_SIGNAL_FAILED', `nginx -s ${signal}`);
}
