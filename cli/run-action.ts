import { isProxyopsError } from '../proxy-config/core/errors.js';
import { exitCodeFor, EXIT } from './exit-codes.js';
import { withInvokedName } from './invoked-name.js';

/** Runs a command's work; a ProxyopsError becomes one line on stderr and its exit code, never a stack. */
export async function runAction(work: () => Promise<number | void>): Promise<void> {
  try {
    const code = await work();
    if (typeof code === 'number') process.exitCode = code;
  } catch (error) {
    if (isProxyopsError(error)) {
      process.stderr.write(`proxyops: ${withInvokedName(error.message)}\n`);
      process.exitCode = exitCodeFor(error.code);
      return;
    }
    process.stderr.write(
      `proxyops: internal error: ${error instanceof Error ? error.stack : String(error)}\n`,
    );
    process.exitCode = EXIT.failed;
  }
}
