/** One line of an edit script: kept, removed from the old text or added by the new one. */
export type Edit = { kind: ' ' | '-' | '+'; line: string };

/**
 * The unified diff (as `diff -u` prints it) between two texts, with `context` unchanged lines
 * around each change; '' when the texts are equal.
 */
export function unifiedDiff(
  oldText: string,
  newText: string,
  labels: { old: string; new: string },
  context = 3,
): string {
  if (oldText === newText) return '';
  const edits = diffLines(splitLines(oldText), splitLines(newText));
  const hunks = groupHunks(edits, context);
  return [`--- ${labels.old}`, `+++ ${labels.new}`, ...hunks].join('\n') + '\n';
}

/** Counts of added and removed lines between two texts. */
export function countChangedLines(oldText: string, newText: string): { added: number; removed: number } {
  const edits = oldText === newText ? [] : diffLines(splitLines(oldText), splitLines(newText));
  return {
    added: edits.filter((e) => e.kind === '+').length,
    removed: edits.filter((e) => e.kind === '-').length,
  };
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * An edit script by longest common subsequence. The common head and tail are trimmed first, so
 * the quadratic table covers only the changed middle: a config edit touches a few lines.
 */
export function diffLines(a: string[], b: string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  // lcs[i][j]: length of the longest common subsequence of x[i..] and y[j..].
  const lcs = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const middle: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      middle.push({ kind: ' ', line: x[i++]! });
      j++;
    } else if (j < y.length && (i === x.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      middle.push({ kind: '+', line: y[j++]! });
    } else {
      middle.push({ kind: '-', line: x[i++]! });
    }
  }
  // Removals before additions inside a run of changes, as diff prints them.
  const ordered = reorderRuns(middle);
  return [
    ...a.slice(0, head).map((line) => ({ kind: ' ' as const, line })),
    ...ordered,
    ...a.slice(a.length - tail).map((line) => ({ kind: ' ' as const, line })),
  ];
}

function reorderRuns(edits: Edit[]): Edit[] {
  const out: Edit[] = [];
  let run: Edit[] = [];
  const flush = () => {
    out.push(...run.filter((e) => e.kind === '-'), ...run.filter((e) => e.kind === '+'));
    run = [];
  };
  for (const edit of edits) {
    if (edit.kind === ' ') {
      flush();
      out.push(edit);
    } else run.push(edit);
  }
  flush();
  return out;
}

/** Hunks with `@@ -a,b +c,d @@` headers; changes closer than 2 × context share a hunk. */
function groupHunks(edits: Edit[], context: number): string[] {
  const changed = edits.flatMap((e, i) => (e.kind === ' ' ? [] : [i]));
  const ranges: Array<[number, number]> = [];
  for (const i of changed) {
    const start = Math.max(0, i - context);
    const end = Math.min(edits.length, i + context + 1);
    const last = ranges.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else ranges.push([start, end]);
  }
  // Line numbers where each edit sits in the old and the new text.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let o = 1;
  let n = 1;
  for (const e of edits) {
    oldAt.push(o);
    newAt.push(n);
    if (e.kind !== '+') o++;
    if (e.kind !== '-') n++;
  }
  return ranges.flatMap(([start, end]) => {
    const slice = edits.slice(start, end);
    const oldCount = slice.filter((e) => e.kind !== '+').length;
    const newCount = slice.filter((e) => e.kind !== '-').length;
    // diff -u numbers an empty side by the line before it.
    const oldStart = oldCount === 0 ? oldAt[start]! - 1 : oldAt[start]!;
    const newStart = newCount === 0 ? newAt[start]! - 1 : newAt[start]!;
    return [
      `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`,
      ...slice.map((e) => `${e.kind}${e.line}`),
    ];
  });
}
