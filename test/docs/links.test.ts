import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Files git tracks (plus untracked, not ignored ones), so a new page is checked before its first commit. */
function repoFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return out
    .split('\n')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)) && statSync(join(ROOT, file)).isFile());
}

const TEXT = /\.(ts|mjs|js|json|md|tmpl|ya?ml|conf|sh)$|^\.ci\/run$/;
const textFiles = repoFiles().filter(
  (file) => TEXT.test(file) && !file.endsWith('package-lock.json') && !file.startsWith('test/docs/'),
);
const pages = textFiles.filter(
  (file) =>
    file.endsWith('.md') &&
    (file === 'README.md' ||
      file === 'CONTRIBUTING.md' ||
      file === 'CHANGELOG.md' ||
      file.startsWith('docs/') ||
      file.startsWith('runbooks/')),
);
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every heading anchor of a markdown text (code blocks skipped), with GitHub's -1, -2 suffixes for repeats. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const m = !fence && /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/** Markdown links `[text](target)` outside code blocks and code spans. */
function links(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('documentation links', () => {
  it('finds the pages it checks', () => {
    for (const page of ['README.md', 'docs/conventions.md', 'docs/api.md', 'runbooks/502.md']) {
      expect(pages).toContain(page);
    }
  });

  it('resolves every relative link of README.md, docs/ and runbooks/ to a file and heading inside the repository', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(read(page))) {
        if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path === '' ? page : relative(ROOT, resolve(ROOT, dirname(page), path));
        if (file.startsWith('..') || !existsSync(join(ROOT, file))) {
          broken.push(`${page}: ${target} (no such file in the repository)`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor)) {
          broken.push(`${page}: ${target} (no heading #${anchor} in ${file})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('has no reference to a file outside the repository', () => {
    const outside = /\.\.\/shared|\/work\/shared|kept outside this repository|shared\/spec|shared\/notes/;
    const hits = textFiles.filter((file) => outside.test(read(file)));
    expect(hits).toEqual([]);
  });

  it('holds no merge-conflict markers a merge left behind', () => {
    const marker = /^(<{7}|>{7})( |$)|^={7}$/m;
    expect(textFiles.filter((file) => marker.test(read(file)))).toEqual([]);
  });

  it('keeps README.md a front page of at most 300 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(300);
  });
});

describe('section citations', () => {
  const conventions = read('docs/conventions.md');
  /** Section numbers of docs/conventions.md: its headings and its numbered rules (**4.7.5**). */
  const sections = new Set([
    ...[...conventions.matchAll(/^#{2,3} (\d+(?:\.\d+)*)\.? /gm)].map((m) => m[1]!),
    ...[...conventions.matchAll(/^- \*\*(\d+(?:\.\d+)+)\*\* /gm)].map((m) => m[1]!),
  ]);

  it('reads the section numbers of the conventions', () => {
    for (const section of ['1', '4.7', '4.7.5', '4.8', '7.3', '8', '9']) expect(sections).toContain(section);
  });

  it('cites only sections docs/conventions.md has, from code, docs, runbooks and CLI output alike', () => {
    const missing: string[] = [];
    let cited = 0;
    for (const file of textFiles) {
      const text = read(file);
      for (const m of text.matchAll(/(RFC \d+ )?§ ?(\d+(?:\.\d+)*)/g)) {
        if (m[1] !== undefined) continue; // a section of an RFC, not of ours
        cited += 1;
        if (!sections.has(m[2]!)) missing.push(`${file}: §${m[2]}`);
      }
      for (const m of text.matchAll(/§(\d+(?:\.\d+)*)[–-](\d+(?:\.\d+)*)/g)) {
        if (!sections.has(m[2]!)) missing.push(`${file}: §${m[1]}–${m[2]}`);
      }
    }
    expect(cited).toBeGreaterThan(50);
    expect(missing).toEqual([]);
  });
});
