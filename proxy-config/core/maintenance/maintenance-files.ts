/**
 * The files of maintenance mode in `paths.maintenanceDir`, shared by the render (which makes nginx
 * test them on each request) and `proxyops maintenance` (which writes them); nginx never reloads.
 *
 * - `NAME.on`: exists while upstream NAME is in maintenance (`if (-e …)` in each of its locations);
 * - `NAME`: a symlink to `retry-after-SECONDS/`, a directory. The maintenance answer's location has it
 *   as its `root`, and nginx's `$realpath_root` (the root with symlinks resolved, read per request)
 *   ends in the seconds, which a map turns into the Retry-After header. It is left in place by `off`,
 *   so a request that saw the flag just before it went still finds it.
 */
export function maintenanceFlagPath(dir: string, upstream: string): string {
  return `${trimDir(dir)}/${upstream}.on`;
}

/** The symlink whose target names the Retry-After seconds of upstream NAME. */
export function maintenanceRetryLinkPath(dir: string, upstream: string): string {
  return `${trimDir(dir)}/${upstream}`;
}

/** The directory the retry link points at (relative to the maintenance directory). */
export function retryAfterDirName(seconds: number): string {
  return `retry-after-${seconds}`;
}

/** The regex a map reads the seconds back from `$realpath_root` with. */
export const RETRY_AFTER_FROM_PATH = '~/retry-after-(?<seconds>[0-9]+)$';

/** A file never created: what health paths test instead of the flag, so they are never in maintenance. */
export function neverCreatedPath(dir: string): string {
  return `${trimDir(dir)}/.health-paths-are-never-in-maintenance`;
}

/** Retry-After when `--retry-after` is not given: long enough not to hammer, short for a planned window. */
export const DEFAULT_RETRY_AFTER_SECONDS = 300;

function trimDir(dir: string): string {
  return dir.replace(/\/+$/, '');
}
