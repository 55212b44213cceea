import { Option, type Command } from 'commander';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { DEFAULTS } from '../../proxy-config/core/spec/defaults.js';
import { EXIT } from '../exit-codes.js';
import { runAction } from '../run-action.js';
import type { Extent } from './index.js';

interface DeployCheckFlags {
  interval: string;
  threshold: string;
  margin: string;
  finish: string;
  format: 'text' | 'json';
  quiet?: boolean;
}

function seconds(flag: string, raw: string, integer = false): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value)))
    throw new ProxyopsError(
      'BAD_OPTION',
      `${flag} ${JSON.stringify(raw)} must be a ${integer ? 'whole ' : ''}number of at least 0`,
    );
  return value;
}

/**
 * Registers `proxyops deploy check FILE...`: the drain math of conventions §4.7.2 applied to the stop
 * settings of Kubernetes manifests, systemd units and compose files; exit 1 on an error finding.
 */
export function registerDeployCheck(program: Command, extent: Extent = 'whole'): void {
  if (extent === 'head') return;
  const deploy = program.commands.find((command) => command.name() === 'deploy') ?? program;
  const hc = DEFAULTS.healthCheck;
  deploy
    .command('check')
    .description(
      'Check the stop settings of Kubernetes Deployments/StatefulSets, systemd units and compose files against the drain (interval × threshold + margin); exit 1 when an error-severity rule fires, 2 on unreadable input',
    )
    .argument('<files...>', 'Kubernetes manifests (multi-document YAML), systemd unit files, compose files')
    .option(
      '--interval <seconds>',
      'readiness poll interval where a file declares no readiness check',
      String(hc.interval),
    )
    .option(
      '--threshold <n>',
      'failed polls before a balancer drops an instance, where a file declares none',
      String(hc.failureThreshold),
    )
    .option(
      '--margin <seconds>',
      'added to interval × threshold: time for the change to reach every proxy',
      String(hc.margin),
    )
    .option(
      '--finish <seconds>',
      'time an instance needs after its drain to finish its requests',
      String(DEFAULTS.deploy.stopTimeout),
    )
    .addOption(
      new Option(
        '--format <format>',
        'text for people, json (the shape of config lint --json, plus numbers and notes)',
      )
        .choices(['text', 'json'])
        .default('text'),
    )
    .option('-q, --quiet', 'text: the findings only, one line each')
    .action((files: string[], flags: DeployCheckFlags, command: Command) =>
      runAction(async () => {
        const { checkDeployFiles } = await import('../../proxy-config/deploy/deploy-check.js');
        const report = await checkDeployFiles(files, {
          healthCheck: {
            interval: seconds('--interval', flags.interval),
            failureThreshold: seconds('--threshold', flags.threshold, true),
            margin: seconds('--margin', flags.margin),
          },
          finishSeconds: seconds('--finish', flags.finish),
        });
        // `deploy` itself has --json, so commander gives it to the parent: read it from there too.
        const json = flags.format === 'json' || Boolean(command.optsWithGlobals<{ json?: boolean }>().json);
        if (json) {
          const { toLintJson } = await import('../format-lint-report.js');
          process.stdout.write(`${JSON.stringify(toLintJson(report), null, 2)}\n`);
        } else {
          const { formatLintReport } = await import('../format-lint-report.js');
          const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
          const notes = flags.quiet ? '' : report.notes.map((note) => `note: ${note}\n`).join('');
          process.stdout.write(
            notes + formatLintReport(report, { color, cwd: process.cwd(), quiet: Boolean(flags.quiet) }),
          );
        }
        return report.counts.error > 0 ? EXIT.failed : EXIT.ok;
      }),
    );
}
