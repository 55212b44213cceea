import { resolve } from 'node:path';
import type { VersionRecord } from '../core/apply/config-change.js';
import { ProxyopsError } from '../core/errors.js';
import { checkTargetLayout, readVersionRecord, readVersionState } from '../shell/nginx/config-versions.js';

/** One kept version as `config history` lists it. */
export interface HistoryEntry {
  version: string;
  current: boolean;
  previous: boolean;
  /** Absent for versions applied before proxyops kept records. */
  record?: VersionRecord;
}

/** The versions kept under a target, oldest first; TARGET_INVALID when there are none. */
export async function readConfigHistory(target: string): Promise<HistoryEntry[]> {
  const dir = resolve(target);
  await checkTargetLayout(dir);
  const state = await readVersionState(dir);
  if (state.versions.length === 0)
    throw new ProxyopsError(
      'TARGET_INVALID',
      `${dir} holds no config versions (nothing was applied there with proxyops config apply)`,
    );
  return Promise.all(
    state.versions.map(async (version) => {
      const record = await readVersionRecord(dir, version);
      return {
        version,
        current: version === state.current,
        previous: version === state.previous,
        ...(record ? { record } : {}),
      };
    }),
  );
}
