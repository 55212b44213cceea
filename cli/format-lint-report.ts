import { textStyles } from '../proxy-config/core/text-style.js';
import { isAbsolute, relative } from 'node:path';
import type { LintFinding, LintReport } from '../proxy-config/config/lint-config.js';

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

export interface LintTextOptions {
  color: boolean;
  cwd: string;
  /** Findings only, one line each (file:line severity rule what): no explanations, no totals. */
  quiet?: boolean;
}

/**
 * Human `config lint` output. A rule that fired once is one block (file:line, severity, rule, what,
 * then why, fix and runbook); a rule that fired several times is one block too: its places listed
 * under a header, the explanation once. Then the totals.
 */
export function formatLintReport(report: LintReport, options: LintTextOptions): string {
  const c = textStyles(options.color);
  const from = (f: LintFinding) => (f.contexts ? c.dim(` (included in ${f.contexts.join(', ')})`) : '');
  const where = (f: LintFinding) => c.bold(`${shortPath(f.file, options.cwd)}:${f.line}`);
  const severityOf = (f: LintFinding) =>
    f.severity === 'error'
      ? c.red.bold('error  ')
      : f.severity === 'warning'
        ? c.yellow.bold('warning')
        : c.blue.bold('note   ');
  if (options.quiet)
    return report.findings
      .map((f) => `${where(f)}  ${severityOf(f)}  ${c.cyan(f.ruleId)}  ${f.what}${from(f)}\n`)
      .join('');

  const byRule = new Map<string, LintFinding[]>();
  for (const f of report.findings) byRule.set(f.ruleId, [...(byRule.get(f.ruleId) ?? []), f]);
  const lines: string[] = [];
  for (const group of byRule.values()) {
    const first = group[0] as LintFinding;
    if (group.length === 1)
      lines.push(
        `${where(first)}  ${severityOf(first)}  ${c.cyan(first.ruleId)}  ${first.what}${from(first)}`,
      );
    else {
      lines.push(`${severityOf(first)}  ${c.cyan(first.ruleId)}  ${first.title} (${group.length} places)`);
      for (const f of group) lines.push(`  ${where(f)}  ${f.what}${from(f)}`);
    }
    lines.push(`    ${c.dim('why:')} ${first.message}`);
    lines.push(`    ${c.green('fix:')} ${first.fix}`);
    if (first.runbook) lines.push(`    ${c.dim('runbook:')} ${first.runbook}`);
    lines.push('');
  }
  if (report.nginx) {
    lines.push(`${c.dim('judged against:')} ${report.nginx.summary}`);
    for (const unknown of report.nginx.unknownAdvisories) lines.push(`${c.dim('advisory:')} ${unknown}`);
  }
  const { error, warning, note, ignored } = report.counts;
  const files = report.files.length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const notes = note > 0 ? `, ${plural(note, 'note')}` : '';
  const summary = `${plural(error, 'error')}, ${plural(warning, 'warning')}${notes} in ${plural(files, 'file')}${ignored ? ` (${ignored} ignored)` : ''}`;
  lines.push(error > 0 ? c.red(summary) : warning > 0 ? c.yellow(summary) : c.green(summary));
  return `${lines.join('\n')}\n`;
}
