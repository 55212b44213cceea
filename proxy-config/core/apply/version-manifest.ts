import type { ProxySpec } from '../spec/proxy-spec.js';
import type { ServerAddress } from './server-drift.js';

/** File written beside each applied config: what apply, watch and rollback need to know about it. */
export const VERSION_MANIFEST_FILE = 'proxyops-version.json';

/** What a version needs to be reloaded and watched without its spec. */
export interface VersionManifest {
  pidFile: string;
  errorLog: string;
  accessLog: { path: string; format: 'text' | 'json' };
  /** Each upstream's servers, so a rollback can tell whether they still answer; absent in older versions. */
  servers?: Record<string, ServerAddress[]>;
}

/** The manifest of a spec, as the text stored in the version directory. */
export function renderVersionManifest(spec: ProxySpec): string {
  const manifest: VersionManifest = {
    pidFile: spec.paths.pidFile,
    errorLog: spec.errorLog.path,
    accessLog: { path: spec.accessLog.path, format: spec.accessLog.format },
    servers: Object.fromEntries(
      Object.entries(spec.upstreams).map(([name, pool]) => [
        name,
        pool.servers.map(({ host, port, alternate }) => ({
          host,
          port,
          ...(alternate ? { alternate: { host: alternate.host, port: alternate.port } } : {}),
        })),
      ]),
    ),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** True for a log target that is a file (not stdout/stderr), so it can be read back. */
export function isLogFile(path: string): boolean {
  return path.startsWith('/');
}
