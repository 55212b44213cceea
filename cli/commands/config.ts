import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ServersFrom } from '../../proxy-config/reconcile-servers.js';
import { runAction } from '../run-action.js';
import { registerConfigLint } from './config-lint.js';

/** `proxyops config render|validate|apply|rollback`: the front proxy from a spec. */
export function registerConfig(program: Command): Command {
  const config = program.command('config').description('Render, validate, apply and roll back nginx config');

  config
    .command('render')
    .description('Render a spec to nginx config (same spec, byte-identical files)')
    .requiredOption('--spec <file>', 'proxy spec (YAML or JSON)')
    .option('--out <dir>', 'write the files here instead of printing nginx.conf')
    .action((flags: { spec: string; out?: string }) =>
      runAction(async () => {
        const { renderConfigFile } = await import('../../proxy-config/render-config.js');
        const result = await renderConfigFile(flags.spec, flags.out);
        if (flags.out) for (const path of result.written) process.stdout.write(`wrote ${path}\n`);
        else process.stdout.write(Object.values(result.files).join(''));
      }),
    );

  config
    .command('validate')
    .description('Schema, cross-field checks, lint of the rendered config and a real nginx -t')
    .requiredOption('--spec <file>', 'proxy spec (YAML or JSON)')
    .action((flags: { spec: string }) =>
      runAction(async () => {
        const { validateConfigFile } = await import('../../proxy-config/validate-config.js');
        const { formatValidateReport } = await import('../format-config.js');
        const report = await validateConfigFile(flags.spec);
        const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
        process.stdout.write(formatValidateReport(flags.spec, report, color));
        return report.ok ? 0 : 1;
      }),
    );

  config
    .command('apply')
    .description('Render, validate, swap atomically, reload nginx and confirm; keeps the previous version')
    .requiredOption('--spec <file>', 'proxy spec (YAML or JSON)')
    .requiredOption('--target <dir>', 'config directory; nginx runs with -c DIR/current/nginx.conf')
    .option('--watch <seconds>', 'watch the access log this long after the reload', parseSeconds)
    .option(
      '--rollback-on-5xx <ratio>',
      'roll back when the 5xx share during --watch exceeds this (0..1)',
      parseRatio,
    )
    .addOption(
      new Option(
        '--servers-from <source>',
        'when the spec’s upstream servers differ from the instances a deploy left serving: refuse (check), keep the serving ones (state), or put the spec’s in (spec)',
      )
        .choices(['check', 'state', 'spec'])
        .default('check'),
    )
    .action(
      (flags: {
        spec: string;
        target: string;
        watch?: number;
        rollbackOn5xx?: number;
        serversFrom: ServersFrom;
      }) =>
        runAction(async () => {
          const { applyConfig } = await import('../../proxy-config/apply-config.js');
          const { formatApplyReport } = await import('../format-config.js');
          const report = await applyConfig({
            specPath: flags.spec,
            target: flags.target,
            ...(flags.watch === undefined ? {} : { watchSeconds: flags.watch }),
            ...(flags.rollbackOn5xx === undefined ? {} : { rollbackOn5xx: flags.rollbackOn5xx }),
            serversFrom: flags.serversFrom,
            say: (line) => process.stderr.write(`${line}\n`),
          });
          process.stdout.write(formatApplyReport(report));
          return report.rolledBack || report.watch?.exceeded ? 1 : 0;
        }),
    );

  config
    .command('rollback')
    .description('Point the target back at its previous version and reload nginx')
    .requiredOption('--target <dir>', 'config directory given to config apply')
    .option(
      '--force',
      'roll back even when the previous version routes to instances TARGET/instances.json does not show serving or running',
    )
    .action((flags: { target: string; force?: boolean }) =>
      runAction(async () => {
        const { rollbackConfig } = await import('../../proxy-config/apply-config.js');
        const { formatRollbackReport } = await import('../format-config.js');
        process.stdout.write(
          formatRollbackReport(await rollbackConfig(flags.target, { force: flags.force === true })),
        );
      }),
    );

  registerConfigLint(config);

  return config;
}

function parseSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError('expected a number of seconds >= 0');
  return n;
}

function parseRatio(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('expected a ratio between 0 and 1');
  return n;
}
