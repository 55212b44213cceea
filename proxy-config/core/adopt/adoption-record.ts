import { ProxyopsError } from '../errors.js';
import type { AdoptionRecord, ManagedLines } from './tree.js';

/**
 * The adoption record as read back from the state directory (JSON): checked field by field, so a
 * hand-edited or truncated record is refused (STATE_UNREADABLE) rather than read as "no drift".
 * Undefined stays undefined: nothing adopted yet.
 */
export function toAdoptionRecord(value: unknown, source: string): AdoptionRecord | undefined {
  if (value === undefined) return undefined;
  const upstreams = (value as { upstreams?: unknown } | null)?.upstreams;
  if (typeof upstreams !== 'object' || upstreams === null || Array.isArray(upstreams))
    throw unreadable(source, 'has no "upstreams" object');
  for (const [name, entry] of Object.entries(upstreams))
    if (!isManagedLines(entry))
      throw unreadable(source, `upstreams.${name} is not { file, scope, original, managed }`);
  return { upstreams: upstreams as Record<string, ManagedLines> };
}

function isManagedLines(value: unknown): value is ManagedLines {
  const entry = value as Partial<Record<keyof ManagedLines, unknown>> | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.file === 'string' &&
    (entry.scope === 'block' || entry.scope === 'file') &&
    typeof entry.original === 'string' &&
    typeof entry.managed === 'string'
  );
}

function unreadable(source: string, what: string): ProxyopsError {
  return new ProxyopsError(
    'STATE_UNREADABLE',
    `${source} ${what}: it is proxyops' record of the adopted blocks; restore it from the history (versions/*/record.json) or undo by hand`,
  );
}
