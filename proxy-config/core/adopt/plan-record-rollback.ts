import { driftError, managedSpan, replaceManaged, type UpstreamDrift } from './managed-lines.js';
import type { AdoptionRecord, ManagedLines, NginxTree, TreeChange } from './tree.js';

/**
 * The rollback of an adoption version (an adopt or an undo) planned on the tree as it is now:
 * each block the version changed goes from the text the version left (`from`) to the text it
 * found (`to`), found again by parsing, so hand edits outside the blocks since (a new site, a
 * line above the block, reloaded) are kept. A record absent on one side means the blocks were as
 * before adoption there. ADOPT_DRIFT when a block no longer holds what the version left.
 */
export function planRecordRollback(
  tree: NginxTree,
  from: AdoptionRecord | undefined,
  to: AdoptionRecord | undefined,
): TreeChange {
  const names = [...new Set([...Object.keys(from?.upstreams ?? {}), ...Object.keys(to?.upstreams ?? {})])];
  const drift: UpstreamDrift[] = [];
  const after = new Map<string, string>();
  for (const name of names) {
    const now = from?.upstreams[name];
    const then = to?.upstreams[name];
    const entry = (now ?? then)!;
    const expected = now ? now.managed : then!.original;
    const wanted = then ? then.managed : now!.original;
    const text = after.get(entry.file) ?? tree.files.get(entry.file);
    const span = managedSpan(text, name, entry);
    if ('gone' in span) drift.push({ upstream: name, file: entry.file, lines: [span.gone] });
    else if (span.text !== expected)
      drift.push({
        upstream: name,
        file: entry.file,
        lines: [`${entry.file}:${span.first}: the block differs from the version's`],
      });
    else after.set(entry.file, replaceManaged(text!, name, entry as ManagedLines, wanted));
  }
  if (drift.length > 0) throw driftError(drift);
  return {
    conf: tree.conf,
    files: [...after]
      .map(([path, text]) => ({ path, before: tree.files.get(path)!, after: text }))
      .filter((f) => f.before !== f.after),
  };
}
