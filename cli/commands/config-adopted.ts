import type { AdoptedSpec } from '../../proxy-config/config/adopt-nginx.js';
import type { TreeApplyReport } from '../../proxy-config/config/apply-tree-change.js';

/**
 * The `config` subcommands for a spec naming a hand-written config (`nginx.conf`) on this machine:
 * imported lazily by config.ts once the spec is read, as the rest of each command's work is.
 */

const say = (line: string) => process.stderr.write(`${line}\n`);

/** The spec at `specPath` when it names a hand-written config run here (no proxies, or --target given). */
export async function adoptedHere(specPath: string, target?: string): Promise<AdoptedSpec | undefined> {
  const { readAdoptedSpec } = await import('../../proxy-config/config/adopt-nginx.js');
  const adopted = await readAdoptedSpec(specPath, target);
  if (!adopted || (adopted.spec.proxies.length > 0 && target === undefined)) return undefined;
  return adopted;
}

/** `config apply --spec S [--undo-adopt] [--json]`. */
export async function applyAdopted(
  adopted: AdoptedSpec,
  flags: { undoAdopt?: boolean; json?: boolean; watch?: number; rollbackOn5xx?: number; serversFrom: string },
): Promise<number> {
  if (flags.watch !== undefined || flags.rollbackOn5xx !== undefined || flags.serversFrom !== 'check') {
    const { ProxyopsError } = await import('../../proxy-config/core/errors.js');
    throw new ProxyopsError(
      'BAD_OPTION',
      '--watch, --rollback-on-5xx and --servers-from apply to rendered specs, not to one with nginx.conf',
    );
  }
  const { adoptNginx } = await import('../../proxy-config/config/adopt-nginx.js');
  const report = await adoptNginx(adopted, { undo: flags.undoAdopt === true, say });
  await printReport(report, flags.json);
  return 0;
}

/** `config diff --spec S [--undo-adopt]`: exit 1 when there is a change, as diff(1). */
export async function diffAdopted(adopted: AdoptedSpec, flags: { undoAdopt?: boolean }): Promise<number> {
  const { diffAdoption } = await import('../../proxy-config/config/adopt-nginx.js');
  const { diff, warnings } = await diffAdoption(adopted, flags.undoAdopt === true);
  for (const warning of warnings) say(warning);
  process.stdout.write(diff);
  if (!diff) say(`no change: ${adopted.nginx.conf} already holds this adoption`);
  return diff ? 1 : 0;
}

/** `config history --spec S [--json]`. */
export async function historyAdopted(adopted: AdoptedSpec, flags: { json?: boolean }): Promise<void> {
  const { readTreeHistory } = await import('../../proxy-config/shell/nginx/tree-history.js');
  const history = await readTreeHistory(adopted.state);
  const { formatTreeHistory } = await import('../format-tree.js');
  process.stdout.write(flags.json ? `${JSON.stringify(history, null, 2)}\n` : formatTreeHistory(history));
}

/** `config rollback --spec S [--json]`: the last recorded change undone. */
export async function rollbackAdopted(adopted: AdoptedSpec, flags: { json?: boolean }): Promise<void> {
  const { rollbackAdopted: rollback } = await import('../../proxy-config/config/adopt-nginx.js');
  await printReport(await rollback(adopted, say), flags.json);
}

async function printReport(report: TreeApplyReport, json?: boolean): Promise<void> {
  const { formatTreeApplyReport } = await import('../format-tree.js');
  process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : formatTreeApplyReport(report));
}
