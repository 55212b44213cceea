import { LINT_RULES } from '../core/lint/lint-rules.js';
import { runLintRules } from '../core/lint/run-lint-rules.js';
import type { LintReport } from '../core/lint/types.js';
import type { SnippetContext } from '../core/nginx-config/check-directives.js';
import type { NginxConfig } from '../core/nginx-config/types.js';
import { UNKNOWN_NGINX, type NginxIdentity } from '../core/nginx-config/nginx-identity.js';
import { readNginxConfig } from '../shell/nginx/read-nginx-config.js';

import { LINT_SEVERITIES, type LintSeverity } from '../core/lint/types.js';

export type { LintFinding, LintReport, LintSeverity } from '../core/lint/types.js';

/** Lints a parsed nginx config with every rule of LINT_RULES, judged against `nginx` (pure). */
export function lintNginxConfig(config: NginxConfig, nginx: NginxIdentity = UNKNOWN_NGINX): LintReport {
  return runLintRules(config, LINT_RULES, nginx);
}

/**
 * Reads an nginx config from its main file (includes resolved against `confPrefix`, by default
 * the main file's directory; away from /etc/nginx, `include /etc/nginx/…` too, as in a checkout of
 * a host's /etc/nginx) and lints it; `context` says where a snippet is included (by default
 * guessed, see topLevelContext). An include of a missing file (`include-missing`) and a directive
 * nginx refuses in its context (`directive-not-allowed`) are findings, not stops. Throws
 * NGINX_CONFIG_UNREADABLE / NGINX_CONFIG_INVALID (file:line) when it cannot be read or parsed.
 */
export async function lintNginxConfigFiles(
  mainPath: string,
  options: {
    confPrefix?: string;
    context?: SnippetContext;
    /** 'fail' to stop at a directive nginx refuses in its context (rendered output, about to be applied). */
    notAllowed?: 'fail' | 'keep';
    /** The nginx to judge against (readNginxIdentity, or --nginx-version); none known by default. */
    nginx?: NginxIdentity;
  } = {},
): Promise<LintReport> {
  const { nginx, ...read } = options;
  return lintNginxConfig(
    await readNginxConfig(mainPath, { notAllowed: 'keep', ...read, missingIncludes: 'keep', copy: true }),
    nginx,
  );
}

/** True when a report holds an error-severity finding (the CLI then exits 1). */
export function hasLintErrors(report: LintReport): boolean {
  return report.counts.error > 0;
}

/** True when a report holds a finding of `failOn`'s severity or a more severe one (`--fail-on`). */
export function failsAt(report: LintReport, failOn: LintSeverity): boolean {
  const upTo = LINT_SEVERITIES.slice(0, LINT_SEVERITIES.indexOf(failOn) + 1);
  return upTo.some((severity) => report.counts[severity] > 0);
}
