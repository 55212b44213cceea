import { scopeOf, topLevelContext, walkInContext, type NginxContext } from './check-directives.js';
import { compareNginxVersions, judgedVersion, type NginxIdentity } from './nginx-identity.js';
import { compareDebianVersions, upstreamOf } from './debian-version.js';
import { takesParameter } from './later-parameters.js';
import type { NginxConfig, NginxDirective } from './types.js';
import { NGINX_VERSION_CHANGES, type NginxVersionChange } from './version-changes.js';

/**
 * True when the judged nginx has not got the row's change: it predates the release, and it is no
 * Debian package of that release's backport (max_headers in 1.22.1-9+deb12u8).
 */
export function predates(target: NginxIdentity, row: NginxVersionChange): boolean {
  const debian = target.debianVersion;
  if (
    row.debian &&
    debian &&
    upstreamOf(debian) === upstreamOf(row.debian.since) &&
    compareDebianVersions(debian, row.debian.since) >= 0
  )
    return false;
  return compareNginxVersions(judgedVersion(target), row.version) < 0;
}

/** The row of a kind about `name`, if any (the first: the table lists releases in order). */
export function changeOf(kind: NginxVersionChange['kind'], name: string): NginxVersionChange | undefined {
  return NGINX_VERSION_CHANGES.find((row) => row.kind === kind && row.directives.includes(name));
}

/** Whether a row written for `row.context` covers a directive read in `context`. */
function sameWhere(row: NginxVersionChange, context: NginxContext): boolean {
  // A directive row is about its whole kind of block; an upstream's `server` is not a virtual server.
  if (row.kind === 'directive') return scopeOf(row.context) === scopeOf(context);
  if (row.context.endsWith('upstream') || context.endsWith('upstream')) return row.context === context;
  return scopeOf(row.context) === scopeOf(context);
}

/**
 * The row saying the judged nginx does not take this directive as written where it stands: a
 * directive or a parameter from a later release. undefined when it takes it (or the table says nothing).
 */
export function laterChangeFor(
  directive: NginxDirective,
  context: NginxContext,
  target: NginxIdentity,
): NginxVersionChange | undefined {
  return NGINX_VERSION_CHANGES.find(
    (row) =>
      (row.kind === 'directive' || row.kind === 'parameter') &&
      predates(target, row) &&
      row.directives.includes(directive.name) &&
      sameWhere(row, context) &&
      (row.kind === 'directive' || takesParameter(row, directive)),
  );
}

/** The row by which the judged nginx deprecates this directive as written, when it does. */
export function deprecationFor(
  directive: NginxDirective,
  context: NginxContext,
  target: NginxIdentity,
): NginxVersionChange | undefined {
  return NGINX_VERSION_CHANGES.find(
    (row) =>
      row.kind === 'deprecated' &&
      !predates(target, row) &&
      row.directives.includes(directive.name) &&
      sameWhere(row, context) &&
      takesParameter(row, directive),
  );
}

/** True when the judged nginx has the default a `default` row of this directive introduced. */
export function hasDefaultOf(target: NginxIdentity, name: string): boolean {
  const row = changeOf('default', name);
  return row !== undefined && !predates(target, row);
}

/**
 * The config as the judged nginx reads it: a directive the 1.22 tables refuse in its context
 * (`notAllowedIn`) but a later release takes there (`resolver` in `upstream` from 1.27.3) is
 * unmarked, so no rule reports or skips it as refused.
 */
export function acceptLaterContexts(config: NginxConfig, target: NginxIdentity): NginxConfig {
  const rows = NGINX_VERSION_CHANGES.filter((r) => r.kind === 'context' && !predates(target, r));
  if (rows.length === 0) return config;
  const accepted = new Set<NginxDirective>();
  const top = config.context ?? topLevelContext(config.directives, config.mainFile);
  walkInContext(config.directives, top, (d, context) => {
    if (d.notAllowedIn === undefined) return;
    if (rows.some((r) => r.context === context && r.directives.includes(d.name))) accepted.add(d);
  });
  if (accepted.size === 0) return config;
  const unmark = (list: NginxDirective[]): NginxDirective[] =>
    list.map((d) => {
      const { notAllowedIn: _refused, ...kept } = d;
      const next = accepted.has(d) ? kept : d;
      return next.children ? { ...next, children: unmark(next.children) } : next;
    });
  return { ...config, directives: unmark(config.directives) };
}
