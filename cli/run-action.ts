import { isProxyopsError } from '../proxy-config/core/errors.js';
import { debugEnabled, describeSystemError } from './describe-error.js';
import { exitCodeFor, EXIT } from './exit-codes.js';
import { withInvokedName } from './invoked-name.js';

/**
 * Runs a command's work. A ProxyopsError becomes one line on stderr (one per host when several
 * failed, each prefixed alike: `perLine`) and its exit code; an error from the system (a full disk, a busy
 * port, a missing file) one line saying what to do, exit 2; anything else is our fault: one line,
 * exit 1. The stack trace only with `--debug` or DEBUG=proxyops. `trouble` is the exit code of any
 * error for a command whose 1 means something else (`config diff`, as diff(1): 1 changes, 2 trouble).
 */
export async function runAction(
  work: () => Promise<number | void>,
  options: { trouble?: number } = {},
): Promise<void> {
  try {
    const code = await work();
    if (typeof code === 'number') process.exitCode = code;
  } catch (error) {
    const debug = debugEnabled();
    if (isProxyopsError(error)) {
      const message = withInvokedName(error.message);
      const lines = error.perLine ? message.split('\n') : [message];
      process.stderr.write(lines.map((line) => `proxyops: ${line}\n`).join(''));
      process.exitCode = options.trouble ?? exitCodeFor(error.code);
    } else {
      const system = describeSystemError(error);
      process.stderr.write(
        system !== undefined
          ? `proxyops: ${system}\n`
          : `proxyops: internal error: ${error instanceof Error ? error.message : String(error)}${debug ? '' : ' (run with --debug for the stack trace)'}\n`,
      );
      process.exitCode = options.trouble ?? (system !== undefined ? EXIT.usage : EXIT.failed);
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
