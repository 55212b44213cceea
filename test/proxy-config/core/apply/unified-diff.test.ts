import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { countChangedLines, unifiedDiff } from '../../../../proxy-config/core/apply/unified-diff.js';

const dir = mkdtempSync(join(tmpdir(), 'proxyops-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** GNU diff's minimal unified diff of two texts, from the first hunk on. */
function gnuDiff(a: string, b: string): string {
  writeFileSync(join(dir, 'a'), a);
  writeFileSync(join(dir, 'b'), b);
  try {
    execFileSync('diff', ['--minimal', '-u', join(dir, 'a'), join(dir, 'b')], { encoding: 'utf8' });
    return '';
  } catch (error) {
    return (error as { stdout: string }).stdout.split('\n').slice(2).join('\n');
  }
}

/** Applies a unified diff to a text, hunk by hunk, checking every kept and removed line. */
function applyDiff(text: string, diff: string): string {
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let at = 0;
  for (const line of diff.split('\n').slice(2)) {
    const header = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(line);
    if (header) {
      const start = Number(header[2]) === 0 ? Number(header[1]) : Number(header[1]) - 1;
      out.push(...lines.slice(at, start));
      at = start;
    } else if (line.startsWith('+')) out.push(line.slice(1));
    else if (line.startsWith('-') || line.startsWith(' ')) {
      expect(lines[at]).toBe(line.slice(1));
      if (line.startsWith(' ')) out.push(line.slice(1));
      at++;
    }
  }
  out.push(...lines.slice(at));
  return out.length ? `${out.join('\n')}\n` : '';
}

/** A deterministic generator, so a failure can be replayed from its seed. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

describe('unifiedDiff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n', { old: 'x', new: 'y' })).toBe('');
  });

  it('prints what diff -u prints for a one-line change in a config', () => {
    const before = Array.from({ length: 40 }, (_, i) => `    directive_${i} value;`).join('\n') + '\n';
    const after = before.replace('directive_20 value;', 'directive_20 other;');
    const ours = unifiedDiff(before, after, { old: 'a', new: 'b' });
    expect(ours.split('\n').slice(0, 2)).toEqual(['--- a', '+++ b']);
    expect(ours.split('\n').slice(2).join('\n')).toBe(gnuDiff(before, after));
  });

  it('turns the old text into the new one with as few changed lines as diff --minimal, on random edits', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const next = random(seed);
      const pick = () => 'abcdef'[Math.floor(next() * 6)]!;
      const a = Array.from({ length: Math.floor(next() * 25) }, pick);
      const b = a.flatMap((line) => (next() < 0.2 ? [] : next() < 0.2 ? [line, pick()] : [line]));
      const oldText = a.length ? `${a.join('\n')}\n` : '';
      const newText = b.length ? `${b.join('\n')}\n` : '';
      const ours = unifiedDiff(oldText, newText, { old: 'a', new: 'b' }, 1);
      expect(applyDiff(oldText, ours), `seed ${seed}`).toBe(newText);
      const gnu = gnuDiff(oldText, newText);
      const count = (text: string, sign: string) =>
        text.split('\n').filter((l) => l.startsWith(sign) && !l.startsWith(sign.repeat(3))).length;
      const changed = countChangedLines(oldText, newText);
      expect(changed, `seed ${seed}`).toEqual({ added: count(gnu, '+'), removed: count(gnu, '-') });
    }
  });
});
