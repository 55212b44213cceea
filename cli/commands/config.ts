import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ServersFrom } from '../../proxy-config/config/reconcile-servers.js';
import { EXIT } from '../exit-codes.js';
import { runAction } from '../run-action.js';
import { registerConfigLint } from './config-lint.js';
import type { Extent } from './index.js';

/** `proxyops config render|validate|diff|apply|history|rollback`: the front proxy from a spec. */
export function registerConfig(program: Command, extent: Extent = 'whole'): Command {
  const config = program.command('config').description('Render, validate, apply and roll back nginx config');
  if (extent === 'head') return config;

  config
    .command('render')
    .description('Render a spec to nginx config (same spec, byte-identical files)')
    .requiredOption('--spec <file>', 'proxy spec (YAML or JSON)')
    .option('--out <dir>', 'write the files here instead of printing nginx.conf')
    .action((flags: { spec: string; out?: string }) =>
      runAction(async () => {
        const { renderConfigFile } = await import('../../proxy-config/config/render-config.js');
        const result = await renderConfigFile(flags.spec, flags.out);
        if (flags.out) for (const path of result.written) process.stdout.write(`wrote ${path}\n`);
        else {
          const { MAIN_CONFIG_FILE } = await import('../../proxy-config/core/render/render-nginx-config.js');
          process.stdout.write(result.files[MAIN_CONFIG_FILE] ?? '');
          const others = Object.keys(result.files).filter((name) => name !== MAIN_CONFIG_FILE);
          // The others are loaded from nginx.conf's own directory: printed, they would be lost.
          if (others.length > 0)
            process.stderr.write(
              `proxyops: nginx.conf also loads ${others.join(', ')} from its directory; use --out DIR to write every file\n`,
            );
        }
      }),
    );

  config
    .command('validate')
    .description(
      'Schema, cross-field checks, lint and a real nginx -t: of the rendered config, or (with nginx.conf) of the hand-written tree',
    )
    .requiredOption('--spec <file>', 'proxy spec (YAML or JSON)')
    .action((flags: { spec: string }) =>
      runAction(async () => {
        const { validateConfigFile } = await import('../../proxy-config/config/validate-config.js');
        const { formatValidateReport } = await import('../format-config.js');
        const report = await validateConfigFile(flags.spec);
        const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
        process.stdout.write(formatValidateReport(flags.spec, report, color));
        return report.ok ? 0 : 1;
      }),
    );

  config
    .command('diff')
    .description(
      'Show what config apply would change: a unified diff between the live version and the render, or (with nginx.conf) of each hand-written file the adoption changes',
    )
    .requiredOption('--spec <file>', 'proxy spec (YAML or JSON)')
    .option('--target <dir>', 'config directory given to config apply (default: every host under proxies)')
    .option('--tree <dir>', 'with nginx.conf and proxies: what shipping this tree to every host would change')
    .addOption(serversFromOption())
    .option('--undo-adopt', 'with nginx.conf: the diff of putting the adopted upstream blocks back')
    .addHelpText('after', '\nExit codes follow diff(1): 0 no change, 1 changes shown, 2 trouble.')
    .action(
      (flags: {
        spec: string;
        target?: string;
        tree?: string;
        serversFrom: ServersFrom;
        undoAdopt?: boolean;
      }) =>
        runAction(
          async () => {
            const { adoptedHere, diffAdopted } = await import('./config-adopted.js');
            const adopted =
              flags.tree === undefined ? await adoptedHere(flags.spec, flags.target) : undefined;
            if (adopted) return diffAdopted(adopted, flags);
            if (flags.target === undefined) {
              const { diffOnHosts } = await import('../../proxy-config/config/tree-to-proxies.js');
              const diffs = await diffOnHosts(flags.spec, flags);
              for (const { host, live, diff } of diffs) {
                process.stdout.write(diff ? `== ${host}\n${diff}` : '');
                if (!diff)
                  process.stderr.write(`${host}: no change${live ? `, ${live} already holds it` : ''}\n`);
              }
              return diffs.some((d) => d.diff) ? 1 : 0;
            }
            const { diffConfig } = await import('../../proxy-config/config/diff-config.js');
            const report = await diffConfig(flags.spec, flags.target, flags.serversFrom, (line) =>
              process.stderr.write(`${line}\n`),
            );
            process.stdout.write(report.diff);
            if (!report.diff) process.stderr.write(`no change: ${report.live} already holds this render\n`);
            return report.diff ? 1 : 0;
          },
          { trouble: EXIT.usage },
        ),
    );

  config
    .command('apply')
    .description(
      'Render, validate, swap atomically, reload nginx and confirm; keeps the previous version. With nginx.conf: adopt the upstream blocks in the hand-written tree (tested on a copy, written in place, reloaded, recorded)',
    )
    .requiredOption('--spec <file>', 'proxy spec (YAML or JSON)')
    .option(
      '--target <dir>',
      'config directory; nginx runs with -c DIR/current/nginx.conf (default: every host under proxies, over ssh)',
    )
    .option('--watch <seconds>', 'watch the access log this long after the reload', parseSeconds)
    .option(
      '--rollback-on-5xx <ratio>',
      'roll back when the 5xx share during --watch exceeds this (0..1)',
      parseRatio,
    )
    .option(
      '--tree <dir>',
      'with nginx.conf and proxies: ship this hand-written tree (it stands for the directory of nginx.conf) to every host',
    )
    .addOption(serversFromOption())
    .option(
      '--undo-adopt',
      'with nginx.conf: put the adopted upstream blocks back as they were before adoption',
    )
    .option('--json', 'with nginx.conf: print the report as JSON')
    .action(
      (flags: {
        spec: string;
        target?: string;
        tree?: string;
        watch?: number;
        rollbackOn5xx?: number;
        serversFrom: ServersFrom;
        undoAdopt?: boolean;
        json?: boolean;
      }) =>
        runAction(async () => {
          if (flags.tree !== undefined && flags.target !== undefined)
            throw new (await import('../../proxy-config/core/errors.js')).ProxyopsError(
              'BAD_OPTION',
              '--tree ships a tree to the hosts under the spec’s proxies; give it without --target',
            );
          const { adoptedHere, applyAdopted } = await import('./config-adopted.js');
          const adopted = flags.tree === undefined ? await adoptedHere(flags.spec, flags.target) : undefined;
          if (adopted) return applyAdopted(adopted, flags);
          if (flags.target === undefined) return applyToProxies(flags);
          const { applyConfig } = await import('../../proxy-config/config/apply-config.js');
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
    .command('history')
    .description(
      'List the kept versions: when each was applied, its spec digest and what it changed; with nginx.conf, each change made to the hand-written tree',
    )
    .option('--target <dir>', 'config directory given to config apply')
    .option('--spec <file>', 'without --target: the versions on every host under the spec’s proxies')
    .option('--json', 'print the versions as JSON')
    .action((flags: { target?: string; spec?: string; json?: boolean }) =>
      runAction(async () => {
        const { formatHistory } = await import('../format-config.js');
        const { adoptedHere, historyAdopted } = await import('./config-adopted.js');
        const adopted = flags.spec === undefined ? undefined : await adoptedHere(flags.spec, flags.target);
        if (adopted) return historyAdopted(adopted, flags);
        if (flags.target === undefined) {
          const { ProxyopsError } = await import('../../proxy-config/core/errors.js');
          if (flags.spec === undefined)
            throw new ProxyopsError(
              'BAD_OPTION',
              'give --target DIR, or --spec FILE for the hosts under its proxies',
            );
          const { historyOnHosts } = await import('../../proxy-config/config/tree-to-proxies.js');
          const { formatTreeHistory } = await import('../format-tree.js');
          const hosts = await historyOnHosts(flags.spec);
          process.stdout.write(
            flags.json
              ? `${JSON.stringify(
                  hosts.map((h) => ({ host: h.host, versions: 'tree' in h ? h.tree : h.versions })),
                  null,
                  2,
                )}\n`
              : hosts
                  .map(
                    (h) =>
                      `== ${h.host}\n${'tree' in h ? formatTreeHistory(h.tree) : formatHistory(h.versions)}`,
                  )
                  .join(''),
          );
          return;
        }
        const { readConfigHistory } = await import('../../proxy-config/config/config-history.js');
        const history = await readConfigHistory(flags.target);
        process.stdout.write(flags.json ? `${JSON.stringify(history, null, 2)}\n` : formatHistory(history));
      }),
    );

  config
    .command('rollback')
    .description(
      'Point the target back at its previous version (or any kept one) and reload nginx; with nginx.conf, undo the last recorded change to the hand-written tree',
    )
    .option('--target <dir>', 'config directory given to config apply')
    .option(
      '--spec <file>',
      'with nginx.conf: undo the last recorded change to the hand-written tree (with proxies and no --target: on every host)',
    )
    .option('--json', 'with --spec: print the report as JSON')
    .option(
      '--to <version>',
      'the kept version to go to (vNNNN, from config history); default: the previous one',
    )
    .option(
      '--force',
      'roll back even when the previous version routes to instances TARGET/instances.json does not show serving or running',
    )
    .action((flags: { target?: string; spec?: string; json?: boolean; to?: string; force?: boolean }) =>
      runAction(async () => {
        const { adoptedHere, rollbackAdopted } = await import('./config-adopted.js');
        const adopted = flags.spec === undefined ? undefined : await adoptedHere(flags.spec, flags.target);
        if (adopted) return rollbackAdopted(adopted, flags);
        if (flags.target === undefined) return rollbackOnHosts(flags);
        const { rollbackConfig } = await import('../../proxy-config/config/apply-config.js');
        const { formatRollbackReport } = await import('../format-config.js');
        process.stdout.write(
          formatRollbackReport(
            await rollbackConfig(flags.target, {
              force: flags.force === true,
              ...(flags.to === undefined ? {} : { to: flags.to }),
            }),
          ),
        );
      }),
    );

  registerConfigLint(config);

  return config;
}

/** `config rollback` without --target: the last change to the trees of a spec's hosts undone on every one. */
async function rollbackOnHosts(flags: {
  spec?: string;
  to?: string;
  force?: boolean;
  json?: boolean;
}): Promise<number> {
  const { ProxyopsError } = await import('../../proxy-config/core/errors.js');
  if (flags.spec === undefined || flags.to !== undefined || flags.force)
    throw new ProxyopsError(
      'BAD_OPTION',
      'give --target DIR, or --spec FILE (nginx.conf and proxies, without --to or --force) to undo the last change on every host',
    );
  const { applyOnHosts } = await import('../../proxy-config/config/tree-to-proxies.js');
  const report = await applyOnHosts(flags.spec, { rollback: true }, (line) =>
    process.stderr.write(`${line}\n`),
  );
  const { formatProxiesApplyReport } = await import('../format-config.js');
  process.stdout.write(
    flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatProxiesApplyReport(report),
  );
  return 0;
}

/** `config apply` without --target: the spec's nginx hosts over ssh, as one change. */
async function applyToProxies(flags: {
  spec: string;
  tree?: string;
  undoAdopt?: boolean;
  json?: boolean;
  watch?: number;
  rollbackOn5xx?: number;
  serversFrom: ServersFrom;
}): Promise<number> {
  const { ProxyopsError } = await import('../../proxy-config/core/errors.js');
  if (flags.watch !== undefined || flags.rollbackOn5xx !== undefined || flags.serversFrom !== 'check')
    throw new ProxyopsError(
      'BAD_OPTION',
      '--watch, --rollback-on-5xx and --servers-from apply to one --target; with proxies every host checks its servers as --servers-from check does',
    );
  const { applyOnHosts } = await import('../../proxy-config/config/tree-to-proxies.js');
  const report = await applyOnHosts(flags.spec, flags, (line) => process.stderr.write(`${line}\n`));
  const { formatProxiesApplyReport } = await import('../format-config.js');
  process.stdout.write(
    flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatProxiesApplyReport(report),
  );
  return 0;
}

function serversFromOption(): Option {
  return new Option(
    '--servers-from <source>',
    'when the spec’s upstream servers differ from the instances a deploy left serving: refuse (check), keep the serving ones (state), or put the spec’s in (spec)',
  )
    .choices(['check', 'state', 'spec'])
    .default('check');
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
