import {
  judgeWatchSight,
  type BlindCause,
  type LiveLogs,
  type WatchSight,
  type WatchSightInput,
} from './watch-sight.js';

/** One nginx host's log as its own tree names it: the file, and how its nginx writes it (or why it was not read). */
export interface HostLog {
  host: string;
  path: string;
  logs: { live: LiveLogs } | { notRead: string };
}

/**
 * The watch's sight across nginx hosts. Each host's log is judged on its own (judgeWatchSight);
 * then as one, since the watch parses every host's lines with one reader: a host writing the log in
 * another format would be misread, so differing formats are a blind cause naming each host's
 * `log_format` and `file:line`. A host that is blind blinds the watch on its share of the requests.
 * The slowest flush of any host decides the log delay. Causes and what is not seen name their host,
 * unless every host says the same.
 */
export function judgeHostsSight(
  hosts: readonly HostLog[],
  watch: Omit<WatchSightInput, 'path' | 'live' | 'notRead'>,
): WatchSight {
  const judged = hosts.map((h) => ({ ...h, sight: judgeWatchSight({ ...watch, path: h.path, ...h.logs }) }));
  const blind = byHost(
    judged.map((h) => ({ host: h.host, items: h.sight.blind })),
    (cause) => cause.what,
    (cause, on): BlindCause => ({ ...cause, what: `${on}${cause.what}` }),
  );
  const unseen = byHost(
    judged.map((h) => ({ host: h.host, items: h.sight.unseen })),
    (what) => what,
    (what, on) => `${on}${what}`,
  );
  // Only a host whose format is known (or assumed, not read) has a reader to compare.
  const read = judged.filter((h) => formatsOf(h).length > 0);
  const readers = new Set(read.map((h) => readerKey(h.sight.reader)));
  if (readers.size > 1)
    blind.push({
      what: `the nginx hosts write the upstream's access log in ${readers.size} formats (${read.map((h) => `${h.host}: ${formatsOf(h).join(', ')}`).join('; ')}); the watch reads every host's lines with one`,
      fix: 'write that log in one log_format on every nginx host',
    });
  return {
    blind,
    unseen,
    reader: read[0]?.sight.reader ?? judged[0]?.sight.reader ?? { preset: watch.spec.format },
    logDelayMs: Math.max(0, ...judged.map((h) => h.sight.logDelayMs)),
  };
}

/** A reader, whatever its format's name: one format under two names reads the same lines. */
function readerKey(reader: WatchSight['reader']): string {
  if ('preset' in reader) return `preset:${reader.preset}`;
  const { name: _name, ...format } = reader.format;
  return JSON.stringify(format);
}

/** How a host writes its log: each defined `log_format NAME at FILE:LINE` to PATH, or the spec's format when not read. */
function formatsOf(h: HostLog): string[] {
  if ('notRead' in h.logs) return [`the spec's format assumed for ${h.path} (not read: ${h.logs.notRead})`];
  return h.logs.live.writers
    .filter((w) => w.format !== null)
    .map((w) => `log_format ${w.formatName} at ${w.where} to ${h.path}`);
}

/**
 * Each host's items once: as they are when every host has the same, else `on HOST: ` (or
 * `on HOST, HOST: ` for some of them) before it, in the order first met.
 */
function byHost<T>(
  hosts: ReadonlyArray<{ host: string; items: readonly T[] }>,
  key: (item: T) => string,
  named: (item: T, on: string) => T,
): T[] {
  const seen = new Map<string, { item: T; hosts: string[] }>();
  for (const { host, items } of hosts)
    for (const item of items) {
      const entry = seen.get(key(item)) ?? { item, hosts: [] };
      if (!entry.hosts.includes(host)) entry.hosts.push(host);
      seen.set(key(item), entry);
    }
  return [...seen.values()].map(({ item, hosts: on }) =>
    on.length === hosts.length ? item : named(item, `on ${on.join(', ')}: `),
  );
}
