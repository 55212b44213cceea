import { createHash } from 'node:crypto';
import type { ProxySpec } from '../spec/proxy-spec.js';
import { toServerAddress, type ServerAddress } from './server-drift.js';
import { countChangedLines, unifiedDiff } from './unified-diff.js';

/** The files of one config version, by path relative to the version directory. */
export type VersionFiles = Record<string, string>;

/** File written beside each version at apply time: when, from which spec, what changed. */
export const VERSION_RECORD_FILE = 'proxyops-applied.json';

/** What `config history` shows for a version. */
export interface VersionRecord {
  appliedAt: string;
  specDigest: string;
  summary: string;
}

/** A short, stable digest of the spec a version was rendered from (after defaults and reconciliation). */
export function digestSpec(spec: ProxySpec): string {
  return createHash('sha256').update(JSON.stringify(spec)).digest('hex').slice(0, 12);
}

/** True when a render would install exactly the files of the live version. */
export function isSameRender(live: VersionFiles | undefined, rendered: VersionFiles): boolean {
  if (!live) return false;
  const names = Object.keys(rendered);
  return names.length === Object.keys(live).length && names.every((name) => live[name] === rendered[name]);
}

/** `diff -u` of every file between the live version (labelled `liveLabel`) and a render; '' when equal. */
export function diffVersions(live: VersionFiles, rendered: VersionFiles, liveLabel: string): string {
  const names = [...new Set([...Object.keys(live), ...Object.keys(rendered)])].sort();
  return names
    .map((name) =>
      unifiedDiff(live[name] ?? '', rendered[name] ?? '', {
        old: name in live ? `${liveLabel}/${name}` : '/dev/null',
        new: name in rendered ? `rendered/${name}` : '/dev/null',
      }),
    )
    .join('');
}

/**
 * One line saying what a new version changes against the one before it: upstream servers that
 * came or went, then the size of the edit per file. `first version` when there was none.
 */
export function summarizeChange(
  before: { files: VersionFiles; servers?: Record<string, ServerAddress[]> } | undefined,
  after: { files: VersionFiles; servers: Record<string, ServerAddress[]> },
): string {
  if (!before) return 'first version';
  const parts: string[] = [];
  const pools = [...new Set([...Object.keys(before.servers ?? {}), ...Object.keys(after.servers)])].sort();
  for (const pool of pools) {
    const was = (before.servers?.[pool] ?? []).map(toServerAddress);
    const now = (after.servers[pool] ?? []).map(toServerAddress);
    const added = now.filter((s) => !was.includes(s));
    const removed = was.filter((s) => !now.includes(s));
    if (added.length + removed.length === 0) continue;
    parts.push(
      `upstream ${pool}: ${[...removed.map((s) => `-${s}`), ...added.map((s) => `+${s}`)].join(' ')}`,
    );
  }
  for (const name of Object.keys(after.files).sort()) {
    const { added, removed } = countChangedLines(before.files[name] ?? '', after.files[name]!);
    if (added + removed > 0) parts.push(`${name} +${added} -${removed}`);
  }
  return parts.length > 0 ? parts.join('; ') : 'no change in the rendered files';
}
