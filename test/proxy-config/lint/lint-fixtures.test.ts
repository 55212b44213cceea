import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINT_RULES } from '../../../proxy-config/core/lint/lint-rules.js';
import { runCli } from '../../support/run-cli.js';
import { expectedLines, FIXTURE_DIR, FIXTURES, lintArgs } from './fixtures.js';

interface JsonFinding {
  severity: string;
  ruleId: string;
  line: number;
  file: string;
  what: string;
}

/** Lints one fixture the way a user does: `proxyops config lint FILE --json` (with its `# lint with:` options). */
async function lintFixture(name: string): Promise<{ code: number; findings: JsonFinding[] }> {
  const args = ['config', 'lint', join(FIXTURE_DIR, name), '--json', ...lintArgs(name)];
  const { code, stdout, stderr } = await runCli(args);
  if (code === 2) throw new Error(`config lint ${name} failed: ${stderr}`);
  return { code, findings: (JSON.parse(stdout) as { findings: JsonFinding[] }).findings };
}

describe.each(LINT_RULES.map((rule) => [rule.id, rule.severity]))('lint rule %s', (id, severity) => {
  it('has a failing and a passing fixture', () => {
    const names = FIXTURES.filter((f) => f.ruleId === id && f.form === null).map((f) => f.kind);
    expect(names.sort()).toEqual(['fail', 'pass']);
  });

  const own = FIXTURES.filter((f) => f.ruleId === id);
  it.each(own.filter((f) => f.kind === 'fail').map((f) => [f.name]))(
    '%s: fires at exactly the lines marked # expect, and no other rule fires',
    async (name) => {
      const { code, findings } = await lintFixture(name);
      const lines = expectedLines(name);
      expect(lines.length).toBeGreaterThan(0);
      expect(findings.map((f) => `${f.ruleId}@${f.line}`).sort()).toEqual(
        lines.map((line) => `${id}@${line}`).sort(),
      );
      for (const finding of findings) expect(finding.file).toBe(join(FIXTURE_DIR, name));
      // A hit may be milder than its rule's worst case (alias-traversal reaching siblings only).
      for (const finding of findings)
        expect(['error', 'warning', 'note'].indexOf(finding.severity)).toBeGreaterThanOrEqual(
          ['error', 'warning', 'note'].indexOf(severity),
        );
      expect(code).toBe(findings.some((f) => f.severity === 'error') ? 1 : 0);
    },
  );

  it.each(own.filter((f) => f.kind === 'pass').map((f) => [f.name]))(
    '%s: stays silent (as does every other rule)',
    async (name) => {
      const { code, findings } = await lintFixture(name);
      expect(findings.map((f) => `${f.ruleId}@${f.line}: ${f.what}`)).toEqual([]);
      expect(code).toBe(0);
    },
  );
});

it('has no fixture without a rule, and every form comes as a pair', () => {
  const ids = new Set(LINT_RULES.map((rule) => rule.id));
  for (const fixture of FIXTURES) {
    expect(ids, fixture.name).toContain(fixture.ruleId);
    const twin = fixture.kind === 'fail' ? 'pass' : 'fail';
    expect(
      FIXTURES.some((f) => f.ruleId === fixture.ruleId && f.form === fixture.form && f.kind === twin),
      `${fixture.name} has no ${twin} twin`,
    ).toBe(true);
  }
});
