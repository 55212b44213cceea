import {
  DEFAULT_RETRY_AFTER_SECONDS,
  maintenanceFlagPath,
  maintenanceRetryLinkPath,
  neverCreatedPath,
  RETRY_AFTER_FROM_PATH,
} from '../maintenance/maintenance-files.js';
import type { ProxySpec } from '../spec/proxy-spec.js';

/** The internal path a location in maintenance rewrites to; `json` or `html` is appended per request. */
export function maintenancePath(upstream: string): string {
  return `/.proxyops/maintenance/${upstream}/`;
}

/** The variable holding the file upstream N's locations test: its flag, or for health paths a file never created. */
function flagVariable(index: number): string {
  return `$proxyops_maintenance_flag_${index}`;
}

/**
 * The paths of an upstream left out of maintenance: those under its readiness path's directory
 * (`/health/ready` → `/health/`, so liveness and deep checks too), as a map regex on `$uri`.
 */
export function healthPathPattern(readinessPath: string): string {
  const dir = readinessPath.slice(0, readinessPath.lastIndexOf('/') + 1);
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return dir === '/' ? `~^${escape(readinessPath)}$` : `~^${escape(dir)}`;
}

/** The health paths of `healthPathPattern` as people write them: `/health/*`. */
export function describeHealthPaths(readinessPath: string): string {
  const dir = readinessPath.slice(0, readinessPath.lastIndexOf('/') + 1);
  return dir === '/' ? readinessPath : `${dir}*`;
}

/** The http-level maps of maintenance mode, one flag map per upstream (in the order of the rendered upstreams). */
export function buildMaintenanceMaps(spec: ProxySpec) {
  const dir = spec.paths.maintenanceDir;
  return {
    retryAfterPattern: RETRY_AFTER_FROM_PATH,
    defaultRetryAfter: DEFAULT_RETRY_AFTER_SECONDS,
    upstreams: upstreamNames(spec).map((name, index) => ({
      name,
      variable: flagVariable(index),
      healthPattern: healthPathPattern(spec.upstreams[name]!.healthCheck.readinessPath),
      neverPath: neverCreatedPath(dir),
      flagPath: maintenanceFlagPath(dir, name),
    })),
  };
}

/** What a proxied location of `upstream` renders: the test and where it sends a request in maintenance. */
export function toMaintenanceTest(spec: ProxySpec, upstream: string) {
  return { flag: flagVariable(upstreamNames(spec).indexOf(upstream)), path: maintenancePath(upstream) };
}

/**
 * The two internal locations of each upstream a server routes to: the 503 as problem+json in the
 * API's shape (request id, path) and as an HTML page for browsers, with Retry-After read from the
 * retry link (see maintenance-files.ts).
 */
export function buildMaintenancePages(spec: ProxySpec, upstreams: string[]) {
  return [...new Set(upstreams)].sort().map((name) => ({
    path: maintenancePath(name),
    root: maintenanceRetryLinkPath(spec.paths.maintenanceDir, name),
    json: JSON.stringify({
      type: 'urn:proxyops:problem:maintenance',
      title: 'Down for maintenance',
      status: 503,
      detail: 'the service is down for maintenance; retry after the Retry-After delay',
      instance: '__INSTANCE__',
      code: 'MAINTENANCE',
      requestId: '__REQUEST_ID__',
      layer: spec.layerName,
    })
      .replace('"__INSTANCE__"', '"$proxyops_maintenance_instance"')
      .replace('"__REQUEST_ID__"', '"$proxyops_request_id"'),
    html:
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Down for maintenance</title></head>' +
      '<body><h1>Down for maintenance</h1><p>We will be back shortly. Please try again in a few minutes.</p>' +
      '<p><small>Request id: $proxyops_request_id</small></p></body></html>',
  }));
}

function upstreamNames(spec: ProxySpec): string[] {
  return Object.keys(spec.upstreams).sort();
}
