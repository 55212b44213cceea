import { isAbsolute, relative } from 'node:path';
import { Chalk } from 'chalk';
import type { LintReport } from '../proxy-config/lint-config.js';

/** The `config lint --json` document: the report plus `ok` (false when an error-severity rule fired). */
export function toLintJson(report: LintReport): LintReport & { ok: boolean } {
  return { ok: report.counts.error === 0, ...report };
}

function shortPath(file: string, cwd: string): string {
  // Already relative (the rendered `nginx.conf` of config validate): not a path under the process's cwd.
  if (!isAbsolute(file)) return file;
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') ? rel : file;
}

/** Human `config lint` output: one block per finding (file:line, severity, rule, what, why, fix, runbook), then totals. */
export function formatLintReport(report: LintReport, options: { color: boolean; cwd: string }): string {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const lines: string[] = [];
  for (const f of report.findings) {
    const severity = f.severity === 'error' ? c.red.bold('error  ') : c.yellow.bold('warning');
    lines.push(
      `${c.bold(`${shortPath(f.file, options.cwd)}:${f.line}`)}  ${severity}  ${c.cyan(f.ruleId)}  ${f.what}`,
    );
    lines.push(`    ${c.dim('why:')} ${f.message}`);
    lines.push(`    ${c.green('fix:')} ${f.fix}`);
    if (f.runbook) lines.push(`    ${c.dim('runbook:')} ${f.runbook}`);
    lines.push('');
  }
  const { error, warning, ignored } = report.counts;
  const files = report.files.length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const summary = `${plural(error, 'error')}, ${plural(warning, 'warning')} in ${plural(files, 'file')}${ignored ? ` (${ignored} ignored)` : ''}`;
  lines.push(error > 0 ? c.red(summary) : warning > 0 ? c.yellow(summary) : c.green(summary));
  return `${lines.join('\n')}\n`;
}
