import { NGINX_VERSIONS_COVERED } from './version-changes.js';

/**
 * The nginx a config is judged against: the one that will run it (read from `nginx -V` on this
 * machine or a host), a version given by hand (`--nginx-version`), or none known.
 */
export interface NginxIdentity {
  /** `1.29.7`; undefined when no nginx was found and none was given. */
  version?: string;
  /** How it was found, in words: `running master pid 812 (/usr/sbin/nginx) on web1`, `--nginx-version`. */
  source: string;
  /** The Debian package version of the binary (`1.22.1-9+deb12u12`), when dpkg knows the binary. */
  debianVersion?: string;
  /** Its `configure arguments:` from `nginx -V` (`--with-http_mp4_module`, ...), when read. */
  configure?: string[];
  /** The host's machine (`uname -m`: x86_64, i686, armv7l), when read: some flaws hit 32-bit builds only. */
  machine?: string;
}

/**
 * The version rules judge by when none is known: Debian 12's nginx, whose `ngx_command_t` tables
 * nginx-directives.ts holds. Findings about advisories need a known version and are never made from it.
 */
export const DEFAULT_NGINX_VERSION = '1.22.1';

/** No nginx found and none given: judged by DEFAULT_NGINX_VERSION's tables. */
export const UNKNOWN_NGINX: NginxIdentity = { source: 'none given' };

/** `1.29.7` → [1, 29, 7]; undefined for anything else, leading zeros too (`1.022.1` is no release). */
export function parseNginxVersion(text: string): [number, number, number] | undefined {
  const m = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** Negative, zero or positive as `a` is older than, the same as or newer than `b` (both parse). */
export function compareNginxVersions(a: string, b: string): number {
  const x = parseNginxVersion(a) ?? [0, 0, 0];
  const y = parseNginxVersion(b) ?? [0, 0, 0];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/**
 * The version the directive tables and defaults are read for: the known one, else the default;
 * one outside the releases the tables cover is judged as the nearest covered one.
 */
export function judgedVersion(target: NginxIdentity): string {
  const version = target.version ?? DEFAULT_NGINX_VERSION;
  const { oldest, newest } = NGINX_VERSIONS_COVERED;
  if (compareNginxVersions(version, oldest) < 0) return oldest;
  return compareNginxVersions(version, newest) > 0 ? newest : version;
}

/** True when the judged nginx is `version` or later (by the default when none is known). */
export function isAtLeast(target: NginxIdentity, version: string): boolean {
  return compareNginxVersions(judgedVersion(target), version) >= 0;
}

/**
 * The version and configure arguments `nginx -V` prints (on stderr, as nginx writes it). Only
 * nginx's own `nginx/X.Y.Z` gives a version: a fork's (openresty/1.25.3.1, Angie/1.9.0, freenginx)
 * numbers are not nginx's releases, so the tables and advisories do not apply to it.
 */
export function parseNginxV(output: string): { version?: string; configure: string[] } {
  const version = /nginx version: nginx\/(\d+\.\d+\.\d+)(?![.\d])/.exec(output)?.[1];
  const line = /^configure arguments: (.*)$/m.exec(output)?.[1] ?? '';
  // Arguments are split on the spaces before `--`; quoted values (--with-cc-opt='-g -O2') stay whole.
  const configure = line
    .split(/ (?=--)/)
    .map((a) => a.trim())
    .filter(Boolean);
  return { version, configure };
}

/**
 * One line naming the nginx judged against, for every report: `nginx 1.22.1 (Debian
 * 1.22.1-9+deb12u12), running master pid 812 (/usr/sbin/nginx)`, or, with none known, that and the
 * default the directives were judged by.
 */
export function describeNginxIdentity(target: NginxIdentity): string {
  if (!target.version)
    return `nginx unknown (${target.source}): directives judged as nginx ${DEFAULT_NGINX_VERSION}'s, advisories not judged`;
  const debian = target.debianVersion ? ` (Debian ${target.debianVersion})` : '';
  const judged = judgedVersion(target);
  const { oldest, newest } = NGINX_VERSIONS_COVERED;
  const outside =
    judged === target.version
      ? ''
      : `: ${compareNginxVersions(target.version, oldest) < 0 ? 'older' : 'newer'} than the releases lint's tables cover (${oldest} to ${newest}), directives judged as nginx ${judged}'s`;
  return `nginx ${target.version}${debian}, ${target.source}${outside}`;
}
