import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lintNginxConfigFiles, type LintFinding } from '../../../proxy-config/config/lint-config.js';
import { FIELD_CORPUS, type Judgement } from './field-judgements.js';
import { FIXTURE_DIR } from './fixtures.js';

// Configs from public repositories (test/fixtures/lint/field/SOURCES.md), each finding judged by
// hand in field-judgements.ts: lint must give exactly those findings, none of them a false error.
const FIELD_DIR = join(FIXTURE_DIR, 'field');

const key = (rule: string, file: string, line: number) => `${rule} ${file}:${line}`;
const withSeverity = (rule: string, file: string, line: number, severity: string) =>
  `${key(rule, file, line)} ${severity}`;

async function lintEntry(entry: string, confPrefix?: string): Promise<LintFinding[]> {
  const report = await lintNginxConfigFiles(join(FIELD_DIR, entry), {
    confPrefix: confPrefix === undefined ? undefined : join(FIELD_DIR, confPrefix),
  });
  return report.findings;
}

describe('the field corpus', () => {
  it.each(FIELD_CORPUS.map((e) => [e.entry, e]))(
    '%s: lints (no refusal) with exactly the judged findings, at the judged severities',
    async (_, { entry, confPrefix, findings }) => {
      const got = await lintEntry(entry, confPrefix);
      expect(
        got.map((f) => withSeverity(f.ruleId, relative(FIELD_DIR, f.file), f.line, f.severity)).sort(),
      ).toEqual(
        findings.map(([rule, file, line, severity]) => withSeverity(rule, file, line, severity)).sort(),
      );
    },
  );

  it('has no false error, and at most 5 % of its findings false', async () => {
    const judged = new Map<string, Judgement>();
    for (const { findings } of FIELD_CORPUS)
      for (const [rule, file, line, , judgement] of findings) judged.set(key(rule, file, line), judgement);
    const all = (await Promise.all(FIELD_CORPUS.map((e) => lintEntry(e.entry, e.confPrefix)))).flat();
    const judgementOf = (f: LintFinding) => judged.get(key(f.ruleId, relative(FIELD_DIR, f.file), f.line));
    const count = (j: Judgement, severity?: string) =>
      all.filter((f) => judgementOf(f) === j && (severity === undefined || f.severity === severity)).length;
    const errors = all.filter((f) => f.severity === 'error').length;
    console.log(
      `field corpus: ${FIELD_CORPUS.length} configs, ${all.length} findings: ${count('true')} true, ${count('false')} false, ${count('debatable')} debatable; ${errors} errors, ${count('true', 'error')} true`,
    );
    expect(count('false', 'error')).toBe(0);
    expect(count('false') / all.length).toBeLessThanOrEqual(0.05);
  });
});
