import { ProxyopsError } from '../../core/errors.js';

/** Sends a signal to a process by pid, turning a failure into NGINX_SIGNAL_FAILED. */
export function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    throw new ProxyopsError(
      'NGINX_SIGNAL_FAILED',
      `cannot send ${signal} to pid ${pid}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        cause: error,
      },
    );
  }
}
