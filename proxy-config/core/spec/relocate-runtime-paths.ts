import type { ProxySpec } from './proxy-spec.js';

const STREAMS = new Set(['stdout', 'stderr']);

/**
 * The spec with everything nginx writes (pid, temp files, log files) moved under `prefix`, so a
 * config can be tested with `nginx -t` unprivileged and without touching live files. Certificates,
 * static roots and modules stay where they are: nginx -t must read the real ones.
 */
export function relocateRuntimePaths(spec: ProxySpec, prefix: string): ProxySpec {
  return {
    ...spec,
    paths: { ...spec.paths, pidFile: `${prefix}/nginx.pid`, tempDir: `${prefix}/temp` },
    accessLog: {
      ...spec.accessLog,
      path: STREAMS.has(spec.accessLog.path) ? spec.accessLog.path : `${prefix}/logs/access.log`,
    },
    errorLog: {
      ...spec.errorLog,
      path: STREAMS.has(spec.errorLog.path) ? spec.errorLog.path : `${prefix}/logs/error.log`,
    },
  };
}
