import type { Command } from 'commander';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { DEFAULT_RETRY_AFTER_SECONDS } from '../../proxy-config/core/maintenance/maintenance-files.js';
import { EXIT } from '../exit-codes.js';
import { runAction } from '../run-action.js';

interface MaintenanceFlags {
  upstream: string;
  retryAfter: string;
  spec?: string;
  target?: string;
  dir?: string;
  json?: boolean;
}

/** `proxyops maintenance on|off --upstream NAME`: nginx answers 503 for the upstream (health paths excepted), with no reload. */
export function registerMaintenance(program: Command): void {
  program
    .command('maintenance')
    .description(
      'Put an upstream in maintenance (nginx answers 503: problem+json with Retry-After and the request id, an HTML page for browsers; its health paths still reach it) or take it out. No nginx reload: the applied config tests a file per request',
    )
    .argument('<state>', 'on or off')
    .requiredOption('--upstream <name>', 'the upstream pool')
    .option(
      '--retry-after <seconds>',
      'Retry-After of the 503 answers (on)',
      String(DEFAULT_RETRY_AFTER_SECONDS),
    )
    .option('--spec <file>', 'the applied proxy spec (default: the local stack)')
    .option('--target <dir>', 'config target of proxyops config apply (with --spec)')
    .option('--dir <dir>', 'directory of the local stack started by proxyops up', '.proxyops')
    .option('--json', 'print the outcome as JSON')
    .action((state: string, flags: MaintenanceFlags) =>
      runAction(async () => {
        if (state !== 'on' && state !== 'off')
          throw new ProxyopsError('USAGE', `maintenance ${state}: say on or off`);
        const retryAfter = Number(flags.retryAfter);
        if (!/^\d+$/.test(flags.retryAfter) || retryAfter > 86_400)
          throw new ProxyopsError(
            'BAD_OPTION',
            `--retry-after ${JSON.stringify(flags.retryAfter)} must be whole seconds from 0 to 86400`,
          );
        const { resolveDeployTarget } = await import('../../proxy-config/deploy/deploy-context.js');
        const { setMaintenance } = await import('../../proxy-config/deploy/maintenance.js');
        const where = await resolveDeployTarget(flags);
        const outcome = await setMaintenance(where, { upstream: flags.upstream, state, retryAfter });
        if (flags.json) process.stdout.write(`${JSON.stringify(outcome)}\n`);
        else
          process.stdout.write(
            outcome.state === 'on'
              ? `maintenance on for upstream ${outcome.upstream}: nginx answers 503 (Retry-After: ${outcome.retryAfter}), ${outcome.healthPaths} still reach the instances; no reload\n`
              : `maintenance off for upstream ${outcome.upstream}: ${outcome.changed ? 'requests reach the instances again' : 'it was not on'}; no reload\n`,
          );
        return EXIT.ok;
      }),
    );
}
