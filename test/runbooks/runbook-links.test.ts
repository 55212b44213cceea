import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DIAGNOSIS_RULES } from '../../proxy-config/core/diagnose/diagnosis-rules.js';
import { LINT_RULES } from '../../proxy-config/core/lint/lint-rules.js';
import { RUNBOOKS } from '../../proxy-config/core/lint/runbooks.js';

const ROOT = join(import.meta.dirname, '..', '..');
const RUNBOOK_DIR = join(ROOT, 'runbooks');

/** The anchors GitHub gives a markdown file's headings (lower-case, punctuation dropped, spaces → '-'). */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

function resolves(link: string): string | null {
  const [file = '', anchor] = link.split('#');
  let text: string;
  try {
    text = readFileSync(join(ROOT, file), 'utf8');
  } catch {
    return `${link}: no file ${file}`;
  }
  if (anchor !== undefined && !anchorsOf(text).has(anchor))
    return `${link}: no heading with anchor #${anchor}`;
  return null;
}

const EXPECTED_FILES = [
  '413.md',
  '499.md',
  '502-at-certain-hours.md',
  '502.md',
  '504.md',
  'certificate-expiry.md',
  'disk-full-small-logs.md',
  'failed-deploy.md',
  'proxy-security-report.md',
  'redirect-to-http.md',
  'stale-page-after-deploy.md',
  'trailing-slash-404.md',
];

describe('runbooks', () => {
  it('has one runbook per incident pattern, each with the same sections', () => {
    expect(
      readdirSync(RUNBOOK_DIR)
        .filter((name) => name.endsWith('.md'))
        .sort(),
    ).toEqual(EXPECTED_FILES);
    for (const name of EXPECTED_FILES) {
      const anchors = anchorsOf(readFileSync(join(RUNBOOK_DIR, name), 'utf8'));
      for (const section of [
        'symptoms',
        'commands-to-run',
        'causes-and-how-to-tell-them-apart',
        'fixes',
        'verify',
      ])
        expect(anchors.has(section), `${name} #${section}`).toBe(true);
    }
  });

  it('resolves every runbook link of the diagnosis rules to a file and heading', () => {
    const broken = DIAGNOSIS_RULES.map((rule) => resolves(rule.runbook)).filter(
      (problem) => problem !== null,
    );
    expect(broken).toEqual([]);
  });

  it('resolves every runbook link of the lint rules to a file and heading', () => {
    const links = [
      ...LINT_RULES.map((rule) => rule.runbook).filter((link): link is string => link !== null),
      ...Object.values(RUNBOOKS),
    ];
    expect(links.length).toBeGreaterThan(0);
    expect(links.map(resolves).filter((problem) => problem !== null)).toEqual([]);
  });

  it('resolves the links between runbooks', () => {
    const broken: string[] = [];
    for (const name of EXPECTED_FILES) {
      const text = readFileSync(join(RUNBOOK_DIR, name), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([a-z0-9-]+\.md(?:#[^)]+)?)\)/g)) {
        const problem = resolves(`runbooks/${target}`);
        if (problem) broken.push(`${name} → ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('computes anchors the way GitHub does', () => {
    expect([
      ...anchorsOf(
        '# X-Forwarded-Proto\n## Which layer answered?\n### Location and proxy_pass disagree\n## Fixes\n## Fixes',
      ),
    ]).toEqual([
      'x-forwarded-proto',
      'which-layer-answered',
      'location-and-proxy_pass-disagree',
      'fixes',
      'fixes-1',
    ]);
  });
});
