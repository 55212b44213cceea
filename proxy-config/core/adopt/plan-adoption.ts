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
import { driftError, findDrift, managedSpan } from './managed-lines.js';
import { fileEnding, lineEnding, splitKeepingEnds } from './text-lines.js';
import type { AdoptionRecord, ManagedLines, NginxTree, TreeChange } from './tree.js';

/** The comment that marks a line proxyops added, naming the server it pairs. */
export const ALTERNATE_MARK = '# proxyops: alternate of';

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
    const drift = findDrift(tree, record);
    if (drift.length > 0) throw driftError(drift);
  }
  const parsed = parseTree(tree);
  const located = Object.entries(upstreams).map(([name, upstream]) => {
    const context: AdoptionContext = { tree, parsed, upstream, located: locateUpstream(tree, parsed, name) };
    refuseUnsafe(context);
    return context;
  });
  const insertions = located.flatMap(({ upstream, located: at }) => alternateLines(upstream, at));
  const after = new Map<string, string>();
  for (const file of new Set(insertions.map((i) => i.file)))
    after.set(
      file,
      insert(
        tree.files.get(file)!,
        insertions.filter((i) => i.file === file),
      ),
    );
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

/** A line for each spec server's alternate that the pool does not list yet. */
function alternateLines(upstream: UpstreamSpec, located: LocatedUpstream): Insertion[] {
  const listed = new Set(located.servers.map((s) => s.key));
  return upstream.servers.flatMap((server) => {
    if (!server.alternate || listed.has(specServerKey(server.alternate))) return [];
    const key = specServerKey(server);
    const { directive } = located.servers.find((s) => s.key === key)!;
    const params = directive.args
      .slice(1)
      .map((a) => ` ${a}`)
      .join('');
    return [
      {
        file: directive.file,
        server: directive.line,
        after: directive.statementEndLine ?? directive.line,
        text: `server ${writtenAddress(server.alternate)}${params};  ${ALTERNATE_MARK} ${writtenAddress(server)}`,
      },
    ];
  });
}

/** The text with each insertion's line added, indented as the server line it follows. */
function insert(text: string, insertions: Insertion[]): string {
  const lines = splitKeepingEnds(text);
  for (const insertion of [...insertions].sort((a, b) => b.after - a.after)) {
    const indent = /^[ \t]*/.exec(lines[insertion.server - 1]!)![0];
    const previous = lines[insertion.after - 1]!;
    const ending = lineEnding(previous);
    // The last line of a file without a final newline: it gets one, and the new last line goes without.
    if (ending === '') lines[insertion.after - 1] = previous + fileEnding(text);
    lines.splice(insertion.after, 0, `${indent}${insertion.text}${ending}`);
  }
  return lines.join('');
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
