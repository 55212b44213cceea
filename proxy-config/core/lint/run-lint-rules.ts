import { walkDirectives } from '../nginx-config/query.js';
import { ROOT_BLOCK } from '../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';
import type { LintFinding, LintReport, LintRule } from './types.js';

/** Where a `# proxyops: ignore ID...` annotation silences those rules. */
interface IgnoreRange {
  ids: Set<string>;
  file: string;
  /** Line range of the enclosing block; undefined for the whole file. */
  from?: number;
  to?: number;
}

/**
 * `# proxyops: ignore ID...` covers the block it is written in; at the top of a file (or of an
 * included file) it covers that whole file.
 */
function ignoreRanges(config: NginxConfig): IgnoreRange[] {
  const ranges: IgnoreRange[] = [];
  walkDirectives(config, (directive, chain) => {
    if (directive.name !== 'proxyops:ignore') return;
    const block = chain.at(-1) as NginxDirective;
    const ids = new Set(directive.args);
    if (block.name === ROOT_BLOCK || block.file !== directive.file)
      ranges.push({ ids, file: directive.file });
    else ranges.push({ ids, file: directive.file, from: block.line, to: block.endLine ?? block.line });
  });
  return ranges;
}

function isIgnored(finding: LintFinding, ranges: IgnoreRange[]): boolean {
  return ranges.some(
    (r) =>
      r.ids.has(finding.ruleId) &&
      r.file === finding.file &&
      (r.from === undefined || (finding.line >= r.from && finding.line <= (r.to ?? r.from))),
  );
}

/** Runs lint rules over a parsed config: findings sorted by file, line and rule, ignored ones counted apart. */
export function runLintRules(config: NginxConfig, rules: readonly LintRule[]): LintReport {
  const ranges = ignoreRanges(config);
  const all: LintFinding[] = rules.flatMap((rule) =>
    rule.test(config).map((hit) => ({
      ruleId: rule.id,
      severity: rule.severity,
      title: rule.title,
      what: hit.what,
      message: rule.message,
      fix: rule.fix,
      runbook: rule.runbook,
      file: hit.file,
      line: hit.line,
    })),
  );
  const kept = all.filter((finding) => !isIgnored(finding, ranges));
  const fileOrder = (file: string) => {
    const index = config.files.indexOf(file);
    return index === -1 ? config.files.length : index;
  };
  kept.sort(
    (a, b) => fileOrder(a.file) - fileOrder(b.file) || a.line - b.line || a.ruleId.localeCompare(b.ruleId),
  );
  return {
    mainFile: config.mainFile,
    files: config.files,
    findings: kept,
    counts: {
      error: kept.filter((f) => f.severity === 'error').length,
      warning: kept.filter((f) => f.severity === 'warning').length,
      ignored: all.length - kept.length,
    },
  };
}
