import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Option, type Command } from 'commander';
import type { LintReport } from '../../proxy-config/config/lint-config.js';
import { EXIT } from '../exit-codes.js';
import { runAction } from '../run-action.js';

type LintFormat = 'text' | 'json' | 'sarif';
type FailOn = 'error' | 'warning' | 'note';

/**
 * `proxyops config lint FILE [--format text|json|sarif] [--quiet] [--fail-on error|warning|note]
 * [--nginx-version X | --host SSH]`: lint any nginx config, judged against a known nginx; exit 1 on a finding of the --fail-on severity or above (errors by default),
 * 2 on unreadable input.
 */
export function registerConfigLint(configCommand: Command): Command {
  return configCommand
    .command('lint')
    .description(
      'Lint an nginx config (includes resolved) for proxy mistakes; exit 1 when an error-severity rule fires',
    )
    .argument('<file>', 'main nginx config file, or a snippet such as a conf.d file')
    .addOption(
      new Option('--format <format>', 'text for people, json (shape in docs/lint.md) or sarif (SARIF 2.1.0)')
        .choices(['text', 'json', 'sarif'])
        .default('text'),
    )
    .addOption(new Option('--json', 'the same as --format json').conflicts('format'))
    .option('-q, --quiet', 'text: the findings only, one line each, without explanations or totals')
    .addOption(
      new Option(
        '--context <context>',
        'where the file is included, for a snippet (default: guessed from its path and directives)',
      ).choices(['http', 'server', 'location']),
    )
    .addOption(
      new Option('--fail-on <severity>', 'exit 1 on findings of this severity or above')
        .choices(['error', 'warning', 'note'])
        .default('error'),
    )
    .option(
      '--conf-prefix <dir>',
      "directory relative includes resolve against (default: the file's directory)",
    )
    .addOption(
      new Option(
        '--nginx-version <version>',
        'judge against this nginx version (CI away from the server); default: the nginx here (running master, else installed)',
      ).conflicts('host'),
    )
    .option('--host <ssh>', 'judge against the nginx on that host, read over ssh with nginx -V')
    .action(
      (
        file: string,
        flags: {
          format: LintFormat;
          json?: boolean;
          quiet?: boolean;
          confPrefix?: string;
          failOn: FailOn;
          context?: 'http' | 'server' | 'location';
          nginxVersion?: string;
          host?: string;
        },
      ) =>
        runAction(async () => {
          const { failsAt, lintNginxConfigFiles } = await import('../../proxy-config/config/lint-config.js');
          const { findLintNginx } = await import('../../proxy-config/config/lint-nginx.js');
          const nginx = await findLintNginx({ nginxVersion: flags.nginxVersion, host: flags.host });
          const report = await lintNginxConfigFiles(file, {
            confPrefix: flags.confPrefix,
            context: flags.context,
            nginx,
          });
          const format: LintFormat = flags.json ? 'json' : flags.format;
          process.stdout.write(await render(report, format, Boolean(flags.quiet)));
          return failsAt(report, flags.failOn) ? EXIT.failed : EXIT.ok;
        }),
    );
}

async function render(report: LintReport, format: LintFormat, quiet: boolean): Promise<string> {
  if (format === 'json') {
    const { toLintJson } = await import('../format-lint-report.js');
    return `${JSON.stringify(toLintJson(report), null, 2)}\n`;
  }
  if (format === 'sarif') {
    const { toLintSarif } = await import('../format-lint-sarif.js');
    const { LINT_RULES } = await import('../../proxy-config/core/lint/lint-rules.js');
    const { findTemplatesDir } = await import('../../proxy-config/shell/nginx/read-templates.js');
    const { PROXYOPS_VERSION } = await import('../../proxy-config/core/version.js');
    // runbooks/ ships next to templates/ in the package root.
    const runbookBase = pathToFileURL(`${dirname(findTemplatesDir())}/`).href;
    const sarif = toLintSarif(report, LINT_RULES, {
      cwd: process.cwd(),
      runbookBase,
      toolVersion: PROXYOPS_VERSION,
    });
    return `${JSON.stringify(sarif, null, 2)}\n`;
  }
  const { formatLintReport } = await import('../format-lint-report.js');
  const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  return formatLintReport(report, { color, cwd: process.cwd(), quiet });
}
