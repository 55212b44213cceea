import type { TreeHistoryEntry } from '../proxy-config/config/tree-to-proxies.js';

/** `config history` of a hand-written tree: one line per kept version, oldest first, the latest marked. */
export function formatTreeHistory(versions: readonly TreeHistoryEntry[]): string {
  const lines = versions.map(({ version, record }, index) => {
    const mark = index === versions.length - 1 ? 'latest' : '      ';
    const when = record.appliedAt.replace(/\.\d+Z$/, 'Z');
    return `${version}  ${mark}  ${when}  ${record.kind}  ${record.summary}`.trimEnd();
  });
  return `${lines.join('\n')}\n`;
}
