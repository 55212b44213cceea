import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The lint fixtures. Each rule has `ID.fail.conf` (the rule fires on every line marked `# expect`,
 * and on no other) and `ID.pass.conf` (its near twin: nothing fires). A rule that must catch several
 * forms of one mistake adds more pairs named `ID.FORM.fail.conf` / `ID.FORM.pass.conf` (FORM is one
 * kebab-case word such as `regex-location` or `if-block`).
 */
export const FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/lint');

const FIXTURE_NAME = /^([a-z0-9-]+)(?:\.([a-z0-9-]+))?\.(fail|pass)\.conf$/;

export interface Fixture {
  name: string;
  ruleId: string;
  /** The form this pair shows; null for the rule's main pair. */
  form: string | null;
  kind: 'fail' | 'pass';
}

/**
 * Rules that catch what `nginx -t` itself refuses, where lint knows it without running nginx: their
 * failing fixtures are refused by the real nginx -t (checked in fixtures-nginx.test.ts).
 */
export const REFUSED_BY_NGINX: ReadonlySet<string> = new Set([
  'include-missing',
  'listen-duplicate',
  'upstream-undefined',
  'ssl-certificate-missing',
  'proxy-pass-uri-not-allowed',
  'directive-not-allowed',
  'events-missing',
  'default-server-duplicate',
  'directive-unknown',
  'directive-not-in-version',
]);

/**
 * Rules whose fixtures hold what only a later nginx than the one here loads (`server … resolve`,
 * 1.27.3): nginx 1.22's nginx -t refuses both for that, so neither is run through it; the rule's
 * claim rests on nginx's source (docs/lint.md, the audit table).
 */
export const LATER_NGINX_ONLY: ReadonlySet<string> = new Set(['upstream-resolve-refused']);

/** Every fixture file name. */
export const FIXTURE_FILES = readdirSync(FIXTURE_DIR).filter((name) => name.endsWith('.conf'));

/** Every fixture, parsed from its name; a name that breaks the convention throws. */
export const FIXTURES: Fixture[] = FIXTURE_FILES.map((name) => {
  const match = FIXTURE_NAME.exec(name);
  if (!match) throw new Error(`lint fixture ${name} is not named ID[.FORM].(fail|pass).conf`);
  return { name, ruleId: match[1]!, form: match[2] ?? null, kind: match[3] as 'fail' | 'pass' };
});

/** The 1-based lines of a fixture marked `# expect`. */
export function expectedLines(name: string): number[] {
  return readFileSync(join(FIXTURE_DIR, name), 'utf8')
    .split('\n')
    .flatMap((line, index) => (/#\s*expect\s*$/.test(line) ? [index + 1] : []));
}

/**
 * The options a fixture is linted with, from a `# lint with: --nginx-version 1.29.7` line: the
 * fixtures of version-aware rules say which nginx they are judged against (else the one here).
 */
export function lintArgs(name: string): string[] {
  const line = /^# lint with: (.*)$/m.exec(readFileSync(join(FIXTURE_DIR, name), 'utf8'));
  return line ? (line[1] as string).trim().split(/\s+/) : [];
}
