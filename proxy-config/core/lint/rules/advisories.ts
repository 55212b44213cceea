import { compareNginxVersions, type NginxIdentity } from '../../nginx-config/nginx-identity.js';
import type { NginxConfig } from '../../nginx-config/types.js';
import { ADVISORY_PATTERNS } from '../advisories/advisory-patterns.js';
import { judgeAdvisory } from '../advisories/judge-advisory.js';
import { NGINX_ADVISORIES, PATTERN_TEXT, type NginxAdvisory } from '../advisories/nginx-advisories.js';
import type { LintRule, RuleHit } from '../types.js';

/** `upgrade to 1.30.4 (the 1.30 branch) or 1.31.3 and later`, from nginx.org's `Not vulnerable:`. */
function upgradeTo(advisory: NginxAdvisory, version: string): string {
  const fixed = advisory.notVulnerable
    .split(',')
    .map((s) => s.trim().replace(/\+$/, ''))
    .sort(compareNginxVersions);
  const newest = fixed.at(-1) ?? '';
  const branch = fixed.find(
    (f) => f !== newest && f.split('.').slice(0, 2).join('.') === version.split('.').slice(0, 2).join('.'),
  );
  return branch
    ? `upgrade to ${branch} (its branch) or ${newest} and later`
    : `upgrade to ${newest} or later`;
}

/** Each advisory whose pattern the config shows, with the directive where it does. */
function advisoriesInPattern(config: NginxConfig) {
  return NGINX_ADVISORIES.flatMap((advisory) => {
    const at = ADVISORY_PATTERNS[advisory.pattern](config);
    return at ? [{ advisory, at }] : [];
  });
}

/**
 * The advisories whose pattern the config shows but whose hold on this nginx cannot be told (no
 * version known, or a Debian build whose backport the table does not know): `CVE-...: why`.
 */
export function unknownAdvisories(config: NginxConfig, nginx: NginxIdentity): string[] {
  return advisoriesInPattern(config).flatMap(({ advisory }) => {
    const verdict = judgeAdvisory(advisory, nginx);
    return verdict.status === 'unknown'
      ? [`${advisory.cve} (${PATTERN_TEXT[advisory.pattern].what}): unknown, ${verdict.reason}`]
      : [];
  });
}

/**
 * A security advisory of nginx.org that holds for this config on this nginx: the version is in the
 * advisory's vulnerable range (and no Debian backport covers it) and the config shows the pattern
 * the flaw needs. Where the version cannot be known it is never reported (the report lists it as unknown).
 */
export const NGINX_ADVISORY: LintRule = {
  id: 'nginx-advisory',
  severity: 'error',
  title: 'a security advisory of nginx holds for this nginx and config',
  message:
    "The nginx this config is judged against is in the vulnerable range of one of nginx.org's security advisories, and the config uses what the flaw needs (a module, a directive, a regex shape): a client (or a backend, or DNS) can reach it. Each finding names the CVE, the versions and why this nginx is in them, and the advisory. A low-severity advisory is a warning.",
  fix: 'upgrade nginx to the version named (or the distribution package with the fix), or make the config change named in the finding',
  runbook: null,
  test: (config, nginx) => {
    const hits: RuleHit[] = [];
    for (const { advisory, at } of advisoriesInPattern(config)) {
      const verdict = judgeAdvisory(advisory, nginx);
      if (verdict.status !== 'affected' || !nginx.version) continue;
      const pattern = PATTERN_TEXT[advisory.pattern];
      hits.push({
        file: at.file,
        line: at.line,
        directive: at,
        severity: advisory.severity === 'low' ? 'warning' : 'error',
        what: `${advisory.cve} (${advisory.title}, ${advisory.severity}): ${verdict.reason}, and the config has ${pattern.what}; ${upgradeTo(advisory, nginx.version)}, or: ${pattern.workaround} (${advisory.advisory})`,
      });
    }
    return hits;
  },
};
