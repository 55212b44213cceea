import type { Command } from 'commander';
import { EXIT } from '../exit-codes.js';
import { runAction } from '../run-action.js';

/** `proxyops config lint FILE [--json]`: lint any nginx config; exit 1 on an error-severity finding, 2 on unreadable input. */
export function registerConfigLint(configCommand: Command): Command {
  return configCommand
    .command('lint')
    .description(
      'Lint an nginx config (includes resolved) for proxy mistakes; exit 1 when an error-severity rule fires',
    )
    .argument('<file>', 'main nginx config file, or a snippet such as a conf.d file')
    .option('--json', 'print the report as JSON (shape in docs/lint.md)')
    .option(
      '--conf-prefix <dir>',
      "directory relative includes resolve against (default: the file's directory)",
    )
    .action((file: string, flags: { json?: boolean; confPrefix?: string }) =>
      runAction(async () => {
        const { lintNginxConfigFiles } = await import('../../proxy-config/lint-config.js');
        const { formatLintReport, toLintJson } = await import('../format-lint-report.js');
        const report = await lintNginxConfigFiles(file, { confPrefix: flags.confPrefix });
        const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
        process.stdout.write(
          flags.json
            ? `${JSON.stringify(toLintJson(report), null, 2)}\n`
            : formatLintReport(report, { color, cwd: process.cwd() }),
        );
        return report.counts.error > 0 ? EXIT.failed : EXIT.ok;
      }),
    );
}
