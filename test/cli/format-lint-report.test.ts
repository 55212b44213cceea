import { describe, expect, it } from 'vitest';
import { formatLintReport, toLintJson } from '../../cli/format-lint-report.js';
import type { LintReport } from '../../proxy-config/config/lint-config.js';

const REPORT: LintReport = {
  mainFile: '/etc/nginx/nginx.conf',
  files: ['/etc/nginx/nginx.conf'],
  findings: [
    {
      ruleId: 'alias-traversal',
      severity: 'error',
      title: 'alias path traversal',
      what: 'location /s with alias /srv/ serves /s../ from the parent directory',
      message: 'why it hurts',
      fix: 'end both with a slash',
      runbook: null,
      file: '/etc/nginx/nginx.conf',
      line: 7,
    },
  ],
  counts: { error: 1, warning: 0, note: 0, ignored: 2 },
};

describe('formatLintReport', () => {
  it('prints paths relative to the working directory when inside it, and the totals', () => {
    const text = formatLintReport(REPORT, { color: false, cwd: '/etc/nginx' });
    expect(text.split('\n')).toEqual([
      'nginx.conf:7  error    alias-traversal  location /s with alias /srv/ serves /s../ from the parent directory',
      '    why: why it hurts',
      '    fix: end both with a slash',
      '',
      '1 error, 0 warnings in 1 file (2 ignored)',
      '',
    ]);
  });

  it('colours only when asked to', () => {
    expect(formatLintReport(REPORT, { color: false, cwd: '/' })).not.toContain('\u001b[');
    expect(formatLintReport(REPORT, { color: true, cwd: '/' })).toContain('\u001b[31m');
  });

  it('marks the JSON report not ok exactly when an error fired', () => {
    expect(toLintJson(REPORT).ok).toBe(false);
    expect(
      toLintJson({ ...REPORT, findings: [], counts: { error: 0, warning: 3, note: 0, ignored: 0 } }).ok,
    ).toBe(true);
  });
});
