import { resolve } from 'node:path';
import { diffVersions } from '../core/apply/config-change.js';
import { checkTargetLayout, readVersionFiles, readVersionState } from '../shell/nginx/config-versions.js';
import type { ServersFrom } from './reconcile-servers.js';
import { renderForTarget } from './render-for-target.js';

/** What `config diff` found: the live version it compared with, and the unified diff ('' when equal). */
export interface DiffReport {
  live?: string;
  diff: string;
}

/** The change an apply of `specPath` to `target` would make, as a unified diff against the live version. */
export async function diffConfig(
  specPath: string,
  target: string,
  serversFrom: ServersFrom,
  say: (line: string) => void,
): Promise<DiffReport> {
  const dir = resolve(target);
  await checkTargetLayout(dir);
  const { files } = await renderForTarget(specPath, dir, serversFrom, say);
  const { current } = await readVersionState(dir);
  const live = current ? await readVersionFiles(dir, current) : {};
  return { ...(current ? { live: current } : {}), diff: diffVersions(live, files, current ?? 'empty') };
}
