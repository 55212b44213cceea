import { renderVersionManifest, VERSION_MANIFEST_FILE } from '../core/apply/version-manifest.js';
import type { VersionFiles } from '../core/apply/config-change.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import { reconcileServers, type ServersFrom } from './reconcile-servers.js';
import { renderSpec } from './render-config.js';

/** What an apply to a target would install, and what it records once that is live. */
export interface TargetRender {
  spec: ProxySpec;
  /** The nginx config files. */
  config: VersionFiles;
  /** Every file of the version: the config and its manifest. */
  files: VersionFiles;
  record(): Promise<void>;
}

/**
 * Reads a spec and renders it the way `config apply` installs it under `target`: servers reconciled
 * with TARGET/instances.json as `serversFrom` says (unset: the spec as written, for deploy and up).
 * `config diff` uses the same path, so it shows exactly what an apply would change.
 */
export async function renderForTarget(
  specPath: string,
  target: string,
  serversFrom: ServersFrom | undefined,
  say: (line: string) => void,
): Promise<TargetRender> {
  const written = await readSpecFile(specPath);
  const { spec, record } = serversFrom
    ? await reconcileServers(written, target, serversFrom, say)
    : { spec: written, record: () => Promise.resolve() };
  const config = await renderSpec(spec);
  return { spec, config, files: { ...config, [VERSION_MANIFEST_FILE]: renderVersionManifest(spec) }, record };
}
