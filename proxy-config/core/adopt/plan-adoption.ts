import { ProxyopsError } from '../errors.js';
import type { UpstreamSpec } from '../spec/proxy-spec.js';
import { ADOPTION_REFUSALS, type AdoptionContext } from './adoption-refusals.js';
import {
  locateUpstream,
  parseTree,
  specServerKey,
  writtenAddress,
  type LocatedUpstream,
} from './locate-upstream.js';
import { ALTERNATE_MARK, isAlternateLine } from './alternate-marks.js';
import { driftError, findDrift, managedSpan } from './managed-lines.js';
import { fileEnding, lineBody, lineEnding, splitKeepingEnds } from './text-lines.js';
import type { AdoptionRecord, ManagedLines, NginxTree, TreeChange } from './tree.js';

/** A line to add after line `after` (1-based) of a file, indented as line `server` (where its statement starts). */
interface Insertion {
  file: string;
  server: number;
  after: number;
  text: string;
}

/**
 * The change that adopts the spec's upstreams in a hand-written tree, and the record of what it
 * manages. Only lines inside each named `upstream NAME { }` block change: after the line of each
 * spec server whose `alternate` the block does not list, a line for the alternate with the same
 * indentation, parameters and line ending. Every other byte of the tree stays. Already adopted: an
 * empty change. With the record of an earlier adoption, a hand edit inside its lines is refused
 * (ADOPT_DRIFT); a construct proxyops cannot safely edit is refused by its row (ADOPT_REFUSED).
 */
export function planAdoption(
  tree: NginxTree,
  upstreams: Record<string, UpstreamSpec>,
  record?: AdoptionRecord,
): { change: TreeChange; record: AdoptionRecord } {
  if (record) {
    // A block that holds its recorded original is not a hand edit: the adoption never went live
    // there (a crash between the record and the write) or was put back by hand; it is planned again.
    const drift = findDrift(tree, record).filter(
      ({ upstream }) => !holdsOriginal(tree, upstream, record.upstreams[upstream]!),
    );
    if (drift.length > 0) throw driftError(drift);
  }
  const parsed = parseTree(tree);
  const located = Object.entries(upstreams).map(([name, upstream]) => {
    const context: AdoptionContext = { tree, parsed, upstream, located: locateUpstream(tree, parsed, name) };
    refuseUnsafe(context);
    return context;
  });
  const edits = located.map(({ upstream, located: at }) => alternateEdits(tree, upstream, at));
  const insertions = edits.flatMap((e) => e.insertions);
  const removals = edits.flatMap((e) => e.removals);
  const after = new Map<string, string>();
  for (const file of new Set([...insertions, ...removals].map((i) => i.file))) {
    const text = edit(
      tree.files.get(file)!,
      insertions.filter((i) => i.file === file),
      new Set(removals.filter((r) => r.file === file).flatMap((r) => r.lines)),
    );
    if (text !== tree.files.get(file)) after.set(file, text);
  }
  const managed = Object.fromEntries(
    located.map(({ upstream, located: at }) => {
      const entry = managedLinesOf(at, upstream, tree, after);
      const earlier = record?.upstreams[at.name];
      const kept = earlier && earlier.file === entry.file && earlier.scope === entry.scope;
      return [at.name, kept ? { ...entry, original: earlier.original } : entry];
    }),
  );
  return {
    change: {
      conf: tree.conf,
      files: [...after].map(([path, text]) => ({ path, before: tree.files.get(path)!, after: text })),
    },
    record: { upstreams: { ...record?.upstreams, ...managed } },
  };
}

function holdsOriginal(tree: NginxTree, name: string, entry: ManagedLines): boolean {
  const span = managedSpan(tree.files.get(entry.file), name, entry);
  return !('gone' in span) && span.text === entry.original;
}

/** Throws ADOPT_REFUSED for the first refusal row that finds its construct. */
function refuseUnsafe(context: AdoptionContext): void {
  for (const row of ADOPTION_REFUSALS) {
    const hit = row.test(context);
    if (!hit) continue;
    const where = hit.line > 0 ? `${hit.file}:${hit.line}` : hit.file;
    throw new ProxyopsError('ADOPT_REFUSED', `${where}: ${hit.what}: ${row.fix} [${row.id}]`, {
      details: { rule: row.id, file: hit.file, line: hit.line, runbook: row.runbook },
    });
  }
}

/** Lines proxyops added earlier (1-based) that the spec no longer asks for, to remove. */
interface Removal {
  file: string;
  lines: number[];
}

/**
 * A line for each spec server's alternate that the pool does not list yet, and the removal of each
 * line proxyops added earlier that is not the line the spec asks for now (an alternate changed or
 * dropped, a server gone, its parameters changed): the block never keeps a stale partner.
 */
function alternateEdits(
  tree: NginxTree,
  upstream: UpstreamSpec,
  located: LocatedUpstream,
): { insertions: Insertion[]; removals: Removal[] } {
  const wanted = new Map(
    upstream.servers.flatMap((server) => {
      if (!server.alternate) return [];
      const { directive } = located.servers.find((s) => s.key === specServerKey(server))!;
      const params = directive.args
        .slice(1)
        .map((a) => ` ${a}`)
        .join('');
      const text = `server ${writtenAddress(server.alternate)}${params};  ${ALTERNATE_MARK} ${writtenAddress(server)}`;
      return [[specServerKey(server.alternate), { server, directive, text }]] as const;
    }),
  );
  const removals: Removal[] = [];
  const kept = located.servers.filter(({ directive, key }) => {
    const last = directive.statementEndLine ?? directive.line;
    const lines = splitKeepingEnds(tree.files.get(directive.file) ?? '');
    if (!isAlternateLine(lines[last - 1] ?? '')) return true;
    const body = lines
      .slice(directive.line - 1, last)
      .map((l) => lineBody(l).trim())
      .join(' ');
    if (wanted.get(key)?.text === body) return true;
    removals.push({ file: directive.file, lines: range(directive.line, last) });
    return false;
  });
  const listed = new Set(kept.map((s) => s.key));
  const insertions = [...wanted]
    .filter(([key]) => !listed.has(key))
    .map(([, { directive, text }]) => ({
      file: directive.file,
      server: directive.line,
      after: directive.statementEndLine ?? directive.line,
      text,
    }));
  return { insertions, removals };
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/**
 * The text with the removed lines dropped and each insertion's line added, indented as the server
 * line it follows. Whether the file ends with a newline stays as it was.
 */
function edit(text: string, insertions: Insertion[], removed: ReadonlySet<number>): string {
  const lines = splitKeepingEnds(text);
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (!removed.has(i + 1)) out.push(line);
    for (const insertion of insertions.filter((x) => x.after === i + 1)) {
      const indent = /^[ \t]*/.exec(lines[insertion.server - 1]!)![0];
      const ending = lineEnding(line);
      // The last line of a file without a final newline: it gets one, and the new last line goes without.
      if (ending === '') out[out.length - 1] += fileEnding(text);
      out.push(`${indent}${insertion.text}${ending}`);
    }
  });
  const joined = out.join('');
  return /\n$/.test(text) || text === '' ? joined : joined.replace(/\r?\n$/, '');
}

/** The managed lines of one adopted upstream: where they are, before and after the change. */
function managedLinesOf(
  located: LocatedUpstream,
  upstream: UpstreamSpec,
  tree: NginxTree,
  after: ReadonlyMap<string, string>,
): ManagedLines {
  const keys = new Set(upstream.servers.map(specServerKey));
  const block = located.definitions[0]!;
  const holder = located.servers.find((s) => keys.has(s.key))?.directive.file ?? block.file;
  const entry = { file: holder, scope: holder === block.file ? 'block' : 'file' } as const;
  const span = (text: string) => {
    const found = managedSpan(text, located.name, { ...entry, original: '', managed: '' });
    if ('gone' in found) throw new Error(`planAdoption: ${found.gone}`);
    return found.text;
  };
  const before = tree.files.get(holder)!;
  return { ...entry, original: span(before), managed: span(after.get(holder) ?? before) };
}
