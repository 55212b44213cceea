import type { Command } from 'commander';
import { runAction } from '../run-action.js';

/** Options of `proxyops logs rotate`. */
interface RotateFlags {
  log: string;
  pidFile: string;
  compress?: boolean;
  timeout?: string;
  json?: boolean;
}

/** Registers `proxyops logs rotate` under the `logs` group: move, USR1, confirm the reopen, compress. */
export function registerLogsRotate(logs: Command): void {
  logs
    .command('rotate')
    .description(
      'Rotate an nginx log: move it aside, send USR1, confirm every worker reopened, optionally gzip',
    )
    .requiredOption('--log <file>', 'the log file nginx writes (access or error log)')
    .requiredOption('--pid-file <file>', "the nginx master's pid file")
    .option('--compress', 'gzip the moved file once nginx has let go of it')
    .option('--timeout <ms>', 'how long to wait for the reopen', '5000')
    .option('--json', 'print the result as JSON')
    .action((flags: RotateFlags) =>
      runAction(async () => {
        const { rotateLogs } = await import('../../proxy-config/logs/rotate-logs.js');
        const { ProxyopsError } = await import('../../proxy-config/core/errors.js');
        const timeoutMs = Number(flags.timeout);
        if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
          throw new ProxyopsError(
            'BAD_OPTION',
            `--timeout "${flags.timeout}" is not a positive number of milliseconds`,
          );
        }
        const result = await rotateLogs({
          log: flags.log,
          pidFile: flags.pidFile,
          compress: flags.compress,
          timeoutMs,
        });
        process.stdout.write(
          flags.json
            ? `${JSON.stringify(result, null, 2)}\n`
            : `rotated ${result.log} → ${result.compressedTo ?? result.movedTo}; nginx ${result.masterPid} reopened in ${result.reopenMs} ms (pids ${result.released.join(', ')} released the old file)\n`,
        );
      }),
    );
}
