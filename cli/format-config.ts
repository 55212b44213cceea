import type { ApplyReport, RollbackReport } from '../proxy-config/config/apply-config.js';
import type { ProxiesApplyReport } from '../proxy-config/config/apply-to-proxies.js';
import type { HistoryEntry } from '../proxy-config/config/config-history.js';
import { formatStatusDistribution } from '../proxy-config/core/apply/status-distribution.js';
import type { ValidateReport } from '../proxy-config/config/validate-config.js';
import type { TreeValidateReport } from '../proxy-config/config/validate-tree.js';
import { formatLintReport } from './format-lint-report.js';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The human summary of `config validate`: spec, lint findings of the rendered config, nginx -t; for a
 * spec naming a hand-written config, of that tree (nothing is rendered: never "the rendered config").
 */
export function formatValidateReport(
  specPath: string,
  report: ValidateReport | TreeValidateReport,
  color: boolean,
): string {
  if ('conf' in report) return formatTreeValidateReport(specPath, report, color);
  const { spec } = report;
  const lines = [
    `${specPath}: spec valid (${plural(Object.keys(spec.upstreams).length, 'upstream')}, ${plural(spec.servers.length, 'server')}, ${spec.mode} mode)`,
    'lint of the rendered config:',
    formatLintReport(report.lint, { color, cwd: '/' }).trimEnd(),
    `nginx -t: ok${report.nginxOutput.trim() ? ` (${report.nginxOutput.trim()})` : ''}`,
  ];
  return `${lines.join('\n')}\n`;
}

function formatTreeValidateReport(specPath: string, report: TreeValidateReport, color: boolean): string {
  const lines = [
    `${specPath}: spec valid (${plural(Object.keys(report.spec.upstreams).length, 'upstream')}, hand-written config ${report.conf})`,
    `lint of the hand-written tree (${plural(report.fileCount, 'file')}, as config lint ${report.conf} reads it):`,
    formatLintReport(report.lint, { color, cwd: process.cwd() }).trimEnd(),
    `nginx -t on a copy of the tree: ok (${report.testedWith}); what adopting would change: config diff --spec ${specPath}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** The closing summary of `config apply`, including the watch's before/after distribution. */
export function formatApplyReport(report: ApplyReport): string {
  if (report.unchanged)
    return `unchanged ${report.version}: ${report.configPath} (nothing written, no reload)\n`;
  const lines = [`applied ${report.version}: ${report.configPath}`];
  if (report.watch) {
    lines.push(`status codes before: ${formatStatusDistribution(report.watch.before)}`);
    lines.push(
      `status codes after (${report.watch.seconds.toFixed(0)} s): ${formatStatusDistribution(report.watch.after)}`,
    );
  }
  if (report.rolledBack)
    lines.push(`rolled back to ${report.rolledBack.to}: the 5xx share rose above the limit`);
  else if (report.watch?.exceeded)
    lines.push('the 5xx share rose above the limit; there is no previous version to roll back to');
  return `${lines.join('\n')}\n`;
}

/** The summary of `config apply` to a spec's proxies: the version, and the hosts that already held it. */
export function formatProxiesApplyReport(report: ProxiesApplyReport): string {
  const unchanged = report.hosts.filter((h) => h.unchanged).map((h) => `${h.host} ${h.version}`);
  const changed = report.hosts.filter((h) => !h.unchanged).map((h) => h.host);
  const count = (n: number) => `${n} host${n === 1 ? '' : 's'}`;
  if (report.version === undefined)
    return `unchanged on ${count(unchanged.length)}: ${unchanged.join(', ')} (nothing written, no reload)\n`;
  const also = unchanged.length > 0 ? `; unchanged: ${unchanged.join(', ')}` : '';
  const on = `${count(changed.length)}: ${changed.join(', ')}${also}`;
  // Said as one host's change is (format-tree.ts), with the version every host recorded it as.
  if (report.kind === 'adopt') return `adopted: ${report.version} on ${on}\n`;
  if (report.kind === 'undo-adopt') return `undid the adoption: ${report.version} on ${on}\n`;
  if (report.kind === 'rollback')
    return `rolled back ${report.undid ?? 'the last change'}: ${report.version} on ${on}\n`;
  return `applied ${report.version} to ${on}\n`;
}

/** The summary of `config rollback`. */
export function formatRollbackReport(report: RollbackReport): string {
  const reload = report.reload
    ? `nginx reloaded (workers ${report.reload.workersAfter.join(',')})`
    : 'nginx not running, files only';
  const forced = report.forced ? `\nforced: ${report.forced}` : '';
  return `rolled back ${report.from} -> ${report.to}; ${reload}${forced}\n`;
}

/** `config history`: one line per kept version, oldest first, the live one marked. */
export function formatHistory(history: readonly HistoryEntry[]): string {
  const lines = history.map((entry) => {
    const mark = entry.current ? 'current ' : entry.previous ? 'previous' : '        ';
    const { record } = entry;
    const when = record?.appliedAt.replace(/\.\d+Z$/, 'Z') ?? '(no record)         ';
    const digest = record ? `spec ${record.specDigest}` : '';
    return `${entry.version}  ${mark}  ${when}  ${digest}  ${record?.summary ?? ''}`.trimEnd();
  });
  return `${lines.join('\n')}\n`;
}
