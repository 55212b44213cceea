import type { ClassifiedErrorLine } from './classify-error-log.js';
import type { Evidence } from './evidence.js';

/**
 * How far apart an error-log line and an access-log record of the same request may be: both are
 * written to the second, the error when it happens and the access line when the request ends.
 */
export const SAME_REQUEST_WINDOW_MS = 2_000;

function requestPath(request: string): string | null {
  const target = request.split(' ')[1];
  return target ? target.split('?')[0]! : null;
}

/**
 * Of these error-log lines, how many ended as a `status` the client saw: each is joined to the
 * access-log records of its path near its time. A refused connect that nginx retried on another
 * server is in the error log, but the client got the other server's answer. Null when no line finds
 * its request in the access log (no access log, no path or time on either side).
 */
export function clientVisibleCount(
  evidence: Evidence,
  lines: readonly ClassifiedErrorLine[],
  status: number,
): number | null {
  const records = evidence.access?.records ?? [];
  // Lines of one path in one second: as many responses as lines, or as records, whichever is fewer
  // (a request nginx tried on two servers that both failed logs two lines for one response).
  const groups = new Map<string, { path: string; at: number; lines: number }>();
  for (const line of lines) {
    const path = line.request === null ? null : requestPath(line.request);
    if (path === null || line.time === null) continue;
    const key = `${line.time.getTime()} ${path}`;
    const group = groups.get(key);
    if (group) group.lines++;
    else groups.set(key, { path, at: line.time.getTime(), lines: 1 });
  }
  let joined = false;
  let count = 0;
  for (const { path, at, lines: n } of groups.values()) {
    const same = records.filter(
      (record) =>
        record.path === path &&
        record.time !== null &&
        Math.abs(record.time.getTime() - at) <= SAME_REQUEST_WINDOW_MS,
    );
    if (same.length === 0) continue;
    joined = true;
    count += Math.min(n, same.filter((record) => record.status === status).length);
  }
  return joined ? count : null;
}
