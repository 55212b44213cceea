import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINT_RULES } from '../../../proxy-config/core/lint/lint-rules.js';
import { lintNginxConfigFiles } from '../../../proxy-config/lint-config.js';
import { expectedLines, FIXTURE_DIR, FIXTURE_FILES } from './fixtures.js';

describe.each(LINT_RULES.map((rule) => [rule.id]))('lint rule %s', (id) => {
  it('fires on its failing fixture at exactly the lines marked # expect, and no other rule fires', async () => {
    const name = `${id}.fail.conf`;
    expect(FIXTURE_FILES).toContain(name);
    const report = await lintNginxConfigFiles(join(FIXTURE_DIR, name));
    const lines = expectedLines(name);
    expect(lines.length).toBeGreaterThan(0);
    expect(report.findings.map((f) => `${f.ruleId}@${f.line}`).sort()).toEqual(
      lines.map((line) => `${id}@${line}`).sort(),
    );
    for (const finding of report.findings) expect(finding.file).toBe(join(FIXTURE_DIR, name));
  });

  it('stays silent on its passing fixture (as does every other rule)', async () => {
    const name = `${id}.pass.conf`;
    expect(FIXTURE_FILES).toContain(name);
    const report = await lintNginxConfigFiles(join(FIXTURE_DIR, name));
    expect(report.findings.map((f) => `${f.ruleId}@${f.line}: ${f.what}`)).toEqual([]);
  });
});

it('has no fixture without a rule', () => {
  const ids = new Set(LINT_RULES.map((rule) => rule.id));
  for (const name of FIXTURE_FILES) expect(ids).toContain(name.replace(/\.(fail|pass)\.conf$/, ''));
});
