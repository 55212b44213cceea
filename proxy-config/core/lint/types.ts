import type { NginxIdentity } from '../nginx-config/nginx-identity.js';
import type { NginxConfig, NginxDirective } from '../nginx-config/types.js';

/**
 * `error`: a defect that, for the config as written, breaks requests, leaks or opens a hole
 * (`config lint` exits 1). `warning`: a likely mistake whose harm depends on what sits around the
 * config. `note`: advice (request ids, file caches). Warnings and notes fail only with `--fail-on`.
 */
export type LintSeverity = 'error' | 'warning' | 'note';

/** Severities from the most to the least severe. */
export const LINT_SEVERITIES: readonly LintSeverity[] = ['error', 'warning', 'note'];

/** Where a rule fired and what exactly it saw there. */
export interface RuleHit {
  file: string;
  line: number;
  /** One line naming the offending thing (`location /api/ proxies to http://app without ...`). */
  what: string;
  /**
   * Where this form of the mistake does less harm than the rule's worst case (an `alias` that reaches
   * only sibling names, not the parent directory): the lower severity, so the exit code follows harm.
   */
  severity?: LintSeverity;
  /** What to write for this form of the mistake, where it differs from the rule's `fix`. */
  fix?: string;
  /**
   * The directive the hit is about, when it is one: a hit at a directive nginx refuses is dropped
   * (see LintRule.reportsRefused) by this, not by its line, which may hold other directives.
   */
  directive?: NginxDirective;
}

/** A lint rule as data: adding a rule is adding one of these to LINT_RULES. */
export interface LintRule {
  /** Stable kebab-case id, pinned by a test; used in output and in `# proxyops: ignore ID`. */
  id: string;
  severity: LintSeverity;
  title: string;
  /** Why it matters: the symptom it causes in production. */
  message: string;
  /** What to write instead. */
  fix: string;
  /** The runbook section of the incident this mistake leads to, when there is one. */
  runbook: string | null;
  /** Pure check over the parsed config, for the nginx it is judged against (see nginx-target.ts). */
  test: (config: NginxConfig, nginx: NginxIdentity) => RuleHit[];
  /**
   * True for the rule reporting directives nginx refuses in their context (marked `notAllowedIn`):
   * at such a directive, when it is not a block, its finding is the only one kept. nginx never
   * applies it, so what other rules say of its value (TLSv1 in a refused ssl_protocols) is moot.
   * A hit is matched to it by RuleHit.directive, or, when a rule names only a place, by a line that
   * holds nothing but refused directives.
   */
  reportsRefused?: true;
}

/** One finding of `config lint`: the rule's record plus where it fired (the `--json` item shape). */
export interface LintFinding {
  ruleId: string;
  severity: LintSeverity;
  title: string;
  what: string;
  message: string;
  fix: string;
  runbook: string | null;
  file: string;
  line: number;
  /**
   * Where the file is included from, when it is reached from more than one place (a snippet
   * included into several servers): `server example.com (sites-enabled/a:3)`. The finding is
   * reported once for all of them.
   */
  contexts?: string[];
}

/** The nginx a report was judged against, as reports name it. */
export interface JudgedNginx extends NginxIdentity {
  /** The version whose directives and defaults were applied: the known one, else the stated default. */
  judgedAs: string;
  /** One line naming it (describeNginxIdentity). */
  summary: string;
  /**
   * Advisories whose pattern the config shows but whose hold on this nginx is unknown (no version,
   * or a distribution build whose backport is not known): `CVE-...: why`. Never findings.
   */
  unknownAdvisories: string[];
}

/** The result of linting one config. */
export interface LintReport {
  mainFile: string;
  /** The nginx lint judged against (reports of other checks that share this shape have none). */
  nginx?: JudgedNginx;
  files: string[];
  findings: LintFinding[];
  counts: { error: number; warning: number; note: number; ignored: number };
}
