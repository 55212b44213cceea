import {
  compareNginxVersions,
  parseNginxVersion,
  type NginxIdentity,
} from '../../nginx-config/nginx-identity.js';
import { compareDebianVersions, upstreamOf } from '../../nginx-config/debian-version.js';
import type { NginxAdvisory } from './nginx-advisories.js';

/** Whether the judged nginx has an advisory's flaw, by its version alone (the pattern is asked apart). */
export interface AdvisoryVerdict {
  status: 'affected' | 'fixed' | 'unaffected' | 'unknown';
  /** Why, in words: `1.24.0 is in 0.6.27-1.30.0`, `Debian's 1.22.1-9+deb12u12 carries the fix (1.22.1-9+deb12u7)`. */
  reason: string;
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function inRange(version: string, range: string): boolean {
  const [from = '', to = from] = range.split('-');
  if (!parseNginxVersion(from) || !parseNginxVersion(to)) return false;
  return compareNginxVersions(version, from) >= 0 && compareNginxVersions(version, to) <= 0;
}

/**
 * nginx.org's `Not vulnerable: 1.31.0+, 1.30.1+`: the newest entry covers every later version, each
 * other one only its own branch (1.30.x from 1.30.1), as nginx's maintainers read the list.
 */
function isFixedUpstream(version: string, notVulnerable: string): boolean {
  const entries = list(notVulnerable)
    .map((e) => e.replace(/\+$/, ''))
    .filter((e) => parseNginxVersion(e));
  const newest = [...entries].sort(compareNginxVersions).at(-1);
  const branch = (v: string) => v.split('.').slice(0, 2).join('.');
  return entries.some(
    (e) => compareNginxVersions(version, e) >= 0 && (e === newest || branch(e) === branch(version)),
  );
}

/**
 * Whether the judged nginx has the flaw, by version: nginx.org's ranges, then, for a Debian build,
 * Debian's backported fix (known only for the release its package version packages), then, for a
 * flaw of 32-bit platforms, the host's machine. Not known: `unknown`, never `affected`.
 */
export function judgeAdvisory(advisory: NginxAdvisory, target: NginxIdentity): AdvisoryVerdict {
  const verdict = judgeVersion(advisory, target);
  if (verdict.status !== 'affected' || !advisory.only32Bit) return verdict;
  const machine = target.machine;
  if (!machine)
    return {
      status: 'unknown',
      reason: `${verdict.reason}, but it hits 32-bit platforms only and the platform is unknown`,
    };
  return /64|s390x/.test(machine)
    ? { status: 'unaffected', reason: `it hits 32-bit platforms only, and this one is ${machine}` }
    : { ...verdict, reason: `${verdict.reason} on ${machine}, a 32-bit platform` };
}

function judgeVersion(advisory: NginxAdvisory, target: NginxIdentity): AdvisoryVerdict {
  const version = target.version;
  if (!version) return { status: 'unknown', reason: 'the nginx version is unknown' };
  if (isFixedUpstream(version, advisory.notVulnerable))
    return { status: 'fixed', reason: `${version} is fixed (${advisory.notVulnerable})` };
  const range = list(advisory.vulnerable).find((r) => inRange(version, r));
  if (!range) return { status: 'unaffected', reason: `${version} is outside ${advisory.vulnerable}` };
  const debian = target.debianVersion;
  if (!debian) return { status: 'affected', reason: `${version} is in ${range}` };
  const fix = (advisory.debianFixed ?? []).find((f) => upstreamOf(f) === upstreamOf(debian));
  if (!fix)
    return {
      status: 'unknown',
      reason: `${version} is in ${range}, but Debian's ${debian} may carry a backported fix that the table does not know`,
    };
  return compareDebianVersions(debian, fix) >= 0
    ? { status: 'fixed', reason: `Debian's ${debian} carries the fix (from ${fix})` }
    : {
        status: 'affected',
        reason: `${version} is in ${range}; Debian's ${debian} predates its fix in ${fix}`,
      };
}
