import { ERROR_LOG_PATTERNS, type ErrorLogKind } from './error-log-patterns.js';

/** One nginx error-log line that matched a known pattern. */
export interface ClassifiedErrorLine {
  kind: ErrorLogKind;
  /** Local time as written by nginx (`YYYY/MM/DD HH:MM:SS`), read as the host's local time. */
  time: Date | null;
  level: string;
  /** The `upstream: "..."` field, when nginx wrote one. */
  upstream: string | null;
  /** The `request: "..."` field, when nginx wrote one. */
  request: string | null;
  /** The `host: "..."` field (the request's Host header), when nginx wrote one. */
  host?: string | null;
  /** The body size of `client intended to send too large body: N bytes`. */
  bodyBytes: number | null;
  line: string;
}

const HEAD = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2}) \[(\w+)\]/;

/** Classifies one error-log line; null when it matches no known pattern. */
export function classifyErrorLine(line: string): ClassifiedErrorLine | null {
  const row = ERROR_LOG_PATTERNS.find((candidate) => candidate.pattern.test(line));
  if (!row) return null;
  const head = HEAD.exec(line);
  const time = head
    ? new Date(
        Number(head[1]),
        Number(head[2]) - 1,
        Number(head[3]),
        Number(head[4]),
        Number(head[5]),
        Number(head[6]),
      )
    : null;
  const body = /too large (?:chunked )?body: (\d+) bytes/.exec(line);
  return {
    kind: row.kind,
    time,
    level: head?.[7] ?? '',
    upstream: /upstream: "([^"]*)"/.exec(line)?.[1] ?? null,
    request: /request: "([^"]*)"/.exec(line)?.[1] ?? null,
    host: /host: "([^"]*)"/.exec(line)?.[1] ?? null,
    bodyBytes: body ? Number(body[1]) : null,
    line,
  };
}

/** Classifies every recognised line of an error log's text, in order. */
export function classifyErrorLog(text: string): ClassifiedErrorLine[] {
  return text
    .split('\n')
    .map(classifyErrorLine)
    .filter((entry): entry is ClassifiedErrorLine => entry !== null);
}
