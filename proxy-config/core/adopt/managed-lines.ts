import { diffLines } from '../apply/unified-diff.js';
import { ProxyopsError } from '../errors.js';
import { parseNginxConfig } from '../nginx-config/parse-nginx-config.js';
import { allDirectives } from './locate-upstream.js';
import { lineBody, linesOf, replaceLines, splitKeepingEnds } from './text-lines.js';
import type { AdoptionRecord, ManagedLines, NginxTree, TreeChange } from './tree.js';

/** Where a file's managed lines are now: lines `first`..`last`, or why they cannot be found. */
export type ManagedSpan = { first: number; last: number; text: string } | { gone: string };

/**
 * The managed lines of upstream `name` in a file's current text: its block's whole lines, found
 * again by parsing (edits elsewhere in the file move it), or the whole included file.
 */
export function managedSpan(text: string | undefined, name: string, entry: ManagedLines): ManagedSpan {
  if (text === undefined) return { gone: `${entry.file} is no longer read by nginx` };
  if (entry.scope === 'file') return { first: 1, last: splitKeepingEnds(text).length, text };
  const blocks = allDirectives(parseNginxConfig(text, entry.file)).filter(
    (d) => d.name === 'upstream' && d.children && d.args[0] === name,
  );
  if (blocks.length !== 1)
    return {
      gone: `${entry.file} defines upstream ${name} ${blocks.length === 0 ? 'no longer' : `${blocks.length} times`}`,
    };
  const block = blocks[0]!;
  const last = block.endLine ?? block.line;
  return { first: block.line, last, text: linesOf(text, block.line, last) };
}

/** The text with upstream `name`'s managed lines replaced; the span must be found (callers check drift first). */
export function replaceManaged(text: string, name: string, entry: ManagedLines, replacement: string): string {
  const span = managedSpan(text, name, entry);
  if ('gone' in span) throw new Error(`replaceManaged: ${span.gone}`);
  return replaceLines(text, span.first, span.last, replacement);
}

/** A hand edit inside the lines proxyops manages for one upstream. */
export interface UpstreamDrift {
  upstream: string;
  file: string;
  /** Each changed line: `FILE:LINE: added "..."`, `FILE:LINE: removed "..."` (LINE: where it was, now). */
  lines: string[];
}

/**
 * The hand edits inside managed lines since adoption, per upstream; empty when there are none.
 * Edits anywhere else in the tree are the user's own and are not drift.
 */
export function findDrift(tree: NginxTree, record: AdoptionRecord): UpstreamDrift[] {
  return Object.entries(record.upstreams).flatMap(([upstream, entry]) => {
    const span = managedSpan(tree.files.get(entry.file), upstream, entry);
    if ('gone' in span) return [{ upstream, file: entry.file, lines: [span.gone] }];
    if (span.text === entry.managed) return [];
    return [
      { upstream, file: entry.file, lines: changedLines(entry.managed, span.text, entry.file, span.first) },
    ];
  });
}

function changedLines(managed: string, now: string, file: string, first: number): string[] {
  let line = first;
  let removed: string | undefined;
  return diffLines(splitKeepingEnds(managed), splitKeepingEnds(now)).flatMap((edit) => {
    const at = `${file}:${line}`;
    const body = lineBody(edit.line);
    const was = removed;
    removed = edit.kind === '-' ? body : undefined;
    if (edit.kind === '-') return [`${at}: removed ${shown(body)}`];
    line++;
    // A line changed in place: where it differs, since trailing spaces or a tab look alike.
    return edit.kind === '+'
      ? [`${at}: added ${shown(body)}${was === undefined ? '' : ` (${whereDiffers(was, body)})`}`]
      : [];
  });
}

/** A line as JSON quotes it, without its indentation: a tab shows as \t, a trailing space before the quote. */
function shown(body: string): string {
  return JSON.stringify(body.trimStart());
}

/**
 * Where a line changed in place first differs, counted as the quote shows it: from its first
 * character after the indentation (which the quote leaves out), a tab counting as one.
 */
function whereDiffers(was: string, now: string): string {
  let i = 0;
  while (i < was.length && was[i] === now[i]) i++;
  const indent = (line: string) => line.length - line.trimStart().length;
  if (indent(was) !== indent(now) || i < indent(now)) return 'differs in its indentation';
  return `differs at column ${i - indent(now) + 1}`;
}

/**
 * ADOPT_DRIFT: the refusal of an apply, undo or deploy that finds hand edits in managed lines, in
 * one line; with `loadCommand` (a master runs the tree), the command that loads the lines put back.
 */
export function driftError(drift: UpstreamDrift[], loadCommand?: string): ProxyopsError {
  const what = drift.map((d) => `upstream ${d.upstream}: ${d.lines.join(', ')}`).join('; ');
  const load =
    loadCommand === undefined
      ? ''
      : `, then load them with: ${loadCommand} (nginx must run what is on disk before the next apply)`;
  return new ProxyopsError(
    'ADOPT_DRIFT',
    `the lines proxyops manages were edited by hand (${what}); nothing changed: put them back as proxyops left them (it does not guess which lines are meant)${load}`,
    { details: drift },
  );
}

/**
 * The change that puts every adopted block back as it was before adoption, byte for byte; empty
 * when it already is. Refuses (ADOPT_DRIFT) when a managed block was edited by hand since.
 */
export function planUndo(tree: NginxTree, record: AdoptionRecord): TreeChange {
  const entries = Object.entries(record.upstreams);
  const drift = entries.flatMap(([upstream, entry]) => {
    const span = managedSpan(tree.files.get(entry.file), upstream, entry);
    if ('gone' in span) return [{ upstream, file: entry.file, lines: [span.gone] }];
    if (span.text === entry.managed || span.text === entry.original) return [];
    return [
      { upstream, file: entry.file, lines: changedLines(entry.managed, span.text, entry.file, span.first) },
    ];
  });
  if (drift.length > 0) throw driftError(drift);
  const after = new Map<string, string>();
  for (const [upstream, entry] of entries) {
    const text = after.get(entry.file) ?? tree.files.get(entry.file)!;
    after.set(entry.file, replaceManaged(text, upstream, entry, entry.original));
  }
  return {
    conf: tree.conf,
    files: [...after]
      .map(([path, text]) => ({ path, before: tree.files.get(path)!, after: text }))
      .filter((f) => f.before !== f.after),
  };
}
