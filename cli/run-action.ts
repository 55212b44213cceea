import { isProxyopsError } from '../proxy-config/core/errors.js';
import { debugEnabled, describeSystemError } from './describe-error.js';
import { exitCodeFor, EXIT } from './exit-codes.js';
import { withInvokedName } from './invoked-name.js';

/**
 * Runs a command's work. A ProxyopsError becomes one line on stderr and its exit code; an error from
 * the system (a full disk, a busy port, a missing file) one line saying what to do, exit 2; anything
 * else is our fault: one line, exit 1. The stack trace only with `--debug` or DEBUG=proxyops.
 */
export async function runAction(work: () => Promise<number | void>): Promise<void> {
  try {
    const code = await work();
    if (typeof code === 'number') process.exitCode = code;
  } catch (error) {
    const debug = debugEnabled();
    if (isProxyopsError(error)) {
      process.stderr.write(`proxyops: ${withInvokedName(error.message)}\n`);
      process.exitCode = exitCodeFor(error.code);
    } else {
      const system = describeSystemError(error);
      process.stderr.write(
        system !== undefined
          ? `proxyops: ${system}\n`
          : `proxyops: internal error: ${error instanceof Error ? error.message : String(error)}${debug ? '' : ' (run with --debug for the stack trace)'}\n`,
      );
      process.exitCode = system !== undefined ? EXIT.usage : EXIT.failed;
    }
    if (debug) process.stderr.write(`${traceOf(error)}\n`);
  }
}

/** The stack of an error and of every cause under it. */
function traceOf(error: unknown): string {
  const lines: string[] = [];
  for (let at: unknown = error, depth = 0; at !== undefined && depth < 10; depth++) {
    lines.push(at instanceof Error ? (at.stack ?? String(at)) : String(at));
    at = at instanceof Error ? at.cause : undefined;
    if (at !== undefined) lines.push('caused by:');
  }
  return lines.join('\n');
}
