import { execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { createGraphqlError } from './errors.js';

/**
 * Executes with a deadline: after `timeoutMs` the controller aborts, which cancels the running
 * store query and refuses later ones, and the answer is a TIMEOUT error without waiting further.
 */
export async function executeWithTimeout(
  args: ExecutionArgs,
  controller: AbortController,
  timeoutMs: number,
): Promise<ExecutionResult> {
  const timer = setTimeout(
    () => controller.abort(new ProxyopsError('TIMEOUT', `the operation ran longer than ${timeoutMs} ms`)),
    timeoutMs,
  );
  try {
    const run = Promise.resolve(execute(args));
    // Resolvers still unwinding after the deadline fail on the aborted store; nobody awaits them.
    run.catch(() => undefined);
    const timedOut = new Promise<ExecutionResult>((resolve) => {
      const answer = () =>
        resolve({
          data: null,
          errors: [
            createGraphqlError('TIMEOUT', `the operation ran longer than ${timeoutMs} ms and was stopped`, {
              timeoutMs,
            }),
          ],
        });
      if (controller.signal.aborted) answer();
      else controller.signal.addEventListener('abort', answer, { once: true });
    });
    return await Promise.race([run, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
