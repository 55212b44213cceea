import type { TreeApplyReport } from '../proxy-config/config/apply-tree-change.js';
import type { TreeVersionRecord } from '../proxy-config/shell/nginx/tree-history.js';

const DONE: Record<TreeApplyReport['kind'], string> = {
  adopt: 'adopted',
  'undo-adopt': 'undid the adoption',
  rollback: 'rolled back',
  tree: 'applied the tree',
};

/** The closing line of `config apply|rollback` on a hand-written tree. */
export function formatTreeApplyReport(report: TreeApplyReport): string {
  if (report.recordDropped)
    return `undid the adoption: the blocks of ${report.conf} already are as before adoption (put back by hand); the adoption record is dropped (nothing written, no reload)\n`;
  if (report.unchanged)
    return `unchanged: ${report.conf} already holds this ${report.kind === 'undo-adopt' ? 'tree without adoption' : 'adoption'} (nothing written, no reload)\n`;
  const files = report.files.map((f) => `${f.path} +${f.added} -${f.removed}`).join(', ');
  const reload = report.reload
    ? `nginx reloaded (master ${report.reload.masterPid}, workers ${report.reload.workersBefore.join(',')} -> ${report.reload.workersAfter.join(',')})`
    : 'nginx not running: files written only';
  return `${DONE[report.kind]}: ${report.version} (${files}); ${reload}\n`;
}

/** `config history --spec S` of a hand-written tree: one line per version, the last marked current. */
export function formatTreeHistory(
  history: ReadonlyArray<{ version: string; record: TreeVersionRecord }>,
): string {
  if (history.length === 0) return 'no change recorded\n';
  const lines = history.map(({ version, record }, i) => {
    const mark = i === history.length - 1 ? 'current' : '       ';
    const when = record.appliedAt.replace(/\.\d+Z$/, 'Z');
    return `${version}  ${mark}  ${when}  ${record.kind.padEnd(10)}  ${record.summary}`;
  });
  return `${lines.join('\n')}\n`;
}
