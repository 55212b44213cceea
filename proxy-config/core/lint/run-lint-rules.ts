import { childrenNamed, ROOT_BLOCK, rootBlock, walkDirectives } from '../nginx-config/query.js';
import { ANNOTATION_PREFIX, type NginxConfig, type NginxDirective } from '../nginx-config/types.js';
import {
  describeNginxIdentity,
  judgedVersion,
  UNKNOWN_NGINX,
  type NginxIdentity,
} from '../nginx-config/nginx-identity.js';
import { acceptLaterContexts } from '../nginx-config/version-support.js';
import { unknownAdvisories } from './rules/advisories.js';
import type { LintFinding, LintReport, LintRule, RuleHit } from './types.js';

const IGNORE = `${ANNOTATION_PREFIX}ignore`;

/** Where a `# proxyops: ignore ID...` annotation silences those rules. */
interface IgnoreRange {
  ids: Set<string>;
  file: string;
  /** Line range of the enclosing block; undefined for the whole file. */
  from?: number;
  to?: number;
}

/**
 * Where `# proxyops: ignore ID...` applies. Written after a directive on the same line (after its
 * `;`, or after the `}` closing a block) it covers that directive, or that whole block; on a line of
 * its own, or right after a block's `{`, it covers the enclosing block; at the top of a file (or of
 * an included file), that whole file. Map and geo bodies count as blocks too.
 */
function ignoreRanges(config: NginxConfig): IgnoreRange[] {
  const ranges: IgnoreRange[] = [];
  const visit = (block: NginxDirective, body: NginxDirective[]) => {
    body.forEach((d, index) => {
      if (d.children) visit(d, d.children);
      if (d.entries) visit(d, d.entries);
      if (d.name !== IGNORE) return;
      const ids = new Set(d.args);
      const before = body[index - 1];
      if (before && before.file === d.file && (before.endLine ?? before.line) === d.line)
        ranges.push({ ids, file: d.file, from: before.line, to: before.endLine ?? before.line });
      else if (block.name === ROOT_BLOCK || block.file !== d.file) ranges.push({ ids, file: d.file });
      else ranges.push({ ids, file: d.file, from: block.line, to: block.endLine ?? block.line });
    });
  };
  const root = rootBlock(config);
  visit(root, root.children ?? []);
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

/** `server example.com (file:line)`, or the block's name and place for other blocks. */
function describeContext(block: NginxDirective): string {
  const name = block.name === 'server' ? childrenNamed(block, 'server_name')[0]?.args[0] : undefined;
  const label =
    block.name === ROOT_BLOCK ? 'top level' : [block.name, ...(name ? [name] : block.args)].join(' ');
  return `${label} (${block.file}:${block.line})`;
}

/**
 * For each file:line of a file read more than once (a snippet included from several blocks), the
 * blocks of other files it is included into, in reading order.
 */
function includeContexts(config: NginxConfig): Map<string, string[]> {
  const found = new Map<string, Set<string>>();
  walkDirectives(config, (d, chain) => {
    const outer = [...chain].reverse().find((block) => block.file !== d.file);
    if (!outer) return;
    const key = `${d.file}:${d.line}`;
    found.set(key, (found.get(key) ?? new Set()).add(describeContext(outer)));
  });
  return new Map([...found].filter(([, set]) => set.size > 1).map(([key, set]) => [key, [...set]]));
}

/**
 * One finding per place: a rule that fires at the same file:line with the same words more than once
 * (a snippet included into several servers) is reported once, with the contexts listed.
 */
function mergeRepeats(findings: LintFinding[], contexts: Map<string, string[]>): LintFinding[] {
  const byKey = new Map<string, LintFinding>();
  for (const finding of findings) {
    const key = `${finding.ruleId}\0${finding.file}\0${finding.line}\0${finding.what}`;
    if (byKey.has(key)) continue;
    const where = contexts.get(`${finding.file}:${finding.line}`);
    byKey.set(key, where ? { ...finding, contexts: where } : finding);
  }
  return [...byKey.values()];
}

/**
 * Which findings a directive nginx refuses in its context (not a block) hides: there
 * directive-not-allowed's finding is the one kept, as what other rules say of its value is about a
 * setting nginx never applies. A hit naming its directive is hidden when that directive is refused;
 * one naming only a place, when every directive written on that line is refused, so a finding of
 * another directive on the line (`location / { ssl_stapling on; proxy_set_header ...; }`) stays.
 * Lint still reads on past a refusal: a refused block's condition and body (an `if` written
 * straight in http) and what a refused `set` feeds elsewhere are judged as written.
 */
function refusedHits(config: NginxConfig): (hit: RuleHit) => boolean {
  const refused = new Set<NginxDirective>();
  const lines = new Map<string, boolean>();
  walkDirectives(config, (d) => {
    if (d.name.startsWith(ANNOTATION_PREFIX)) return;
    const isRefused = d.notAllowedIn !== undefined && !d.children && !d.entries;
    if (isRefused) refused.add(d);
    const key = `${d.file}:${d.line}`;
    lines.set(key, (lines.get(key) ?? true) && isRefused);
  });
  return (hit) =>
    hit.directive ? refused.has(hit.directive) : lines.get(`${hit.file}:${hit.line}`) === true;
}

/**
 * Runs lint rules over a parsed config, judged against `nginx` (its version's directives, contexts
 * and defaults): findings sorted by file, line and rule, ignored ones counted apart.
 */
export function runLintRules(
  parsed: NginxConfig,
  rules: readonly LintRule[],
  nginx: NginxIdentity = UNKNOWN_NGINX,
): LintReport {
  const config = acceptLaterContexts(parsed, nginx);
  const ranges = ignoreRanges(config);
  const refused = refusedHits(config);
  const raw: LintFinding[] = rules.flatMap((rule) =>
    rule
      .test(config, nginx)
      .filter((hit) => rule.reportsRefused || !refused(hit))
      .map((hit) => ({
        ruleId: rule.id,
        severity: hit.severity ?? rule.severity,
        title: rule.title,
        what: hit.what,
        message: rule.message,
        fix: hit.fix ?? rule.fix,
        runbook: rule.runbook,
        file: hit.file,
        line: hit.line,
      })),
  );
  const all = mergeRepeats(raw, includeContexts(config));
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
    nginx: {
      ...nginx,
      judgedAs: judgedVersion(nginx),
      summary: describeNginxIdentity(nginx),
      unknownAdvisories: unknownAdvisories(config, nginx),
    },
    files: config.files,
    findings: kept,
    counts: {
      error: kept.filter((f) => f.severity === 'error').length,
      warning: kept.filter((f) => f.severity === 'warning').length,
      note: kept.filter((f) => f.severity === 'note').length,
      ignored: all.length - kept.length,
    },
  };
}
