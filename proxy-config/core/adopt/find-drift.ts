// STAND-IN until helper A's core (branch adopt-core) is merged: replaced by A's findDrift.
/** A hand-written tree: every file nginx reads, by the path nginx names it. */
export interface NginxTree {
  conf: string;
  files: Map<string, string>;
}

/** What the adoption made of each upstream block: its text before and after. */
export interface AdoptionRecord {
  upstreams: Record<string, { file: string; original: string; managed: string }>;
}

/** Per upstream, the lines of its block that differ from what the adoption left; empty when none. */
export function findDrift(tree: NginxTree, record: AdoptionRecord): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, adopted] of Object.entries(record.upstreams)) {
    const text = tree.files.get(adopted.file);
    const block = text === undefined ? undefined : blockOf(text, name);
    if (block === undefined) {
      out[name] = [`upstream ${name} is no longer in ${adopted.file}`];
      continue;
    }
    const want = adopted.managed.split('\n');
    const have = block.split('\n');
    const changed: string[] = [];
    for (let i = 0; i < Math.max(want.length, have.length); i++)
      if (want[i] !== have[i])
        changed.push(
          `line ${i + 1} of the block reads ${JSON.stringify(have[i]?.trim() ?? '')}, adopted as ${JSON.stringify(want[i]?.trim() ?? '')}`,
        );
    out[name] = changed;
  }
  return out;
}

function blockOf(text: string, name: string): string | undefined {
  const lines = text.split('\n');
  const head = new RegExp(`^\\s*upstream\\s+${name}\\s*\\{`);
  const start = lines.findIndex((line) => head.test(line));
  if (start < 0) return undefined;
  let depth = 0;
  for (let i = start; i < lines.length; i++) {
    const code = lines[i]!.replace(/#.*/, '');
    depth += (code.match(/\{/g) ?? []).length - (code.match(/\}/g) ?? []).length;
    if (depth === 0) return lines.slice(start, i + 1).join('\n');
  }
  return undefined;
}
