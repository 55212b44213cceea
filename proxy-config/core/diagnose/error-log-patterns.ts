/** What an nginx error-log message says happened, as far as diagnosis cares. */
export type ErrorLogKind =
  | 'upstream-refused'
  | 'upstream-connect-failed'
  | 'upstream-connect-timeout'
  | 'upstream-read-timeout'
  | 'upstream-reset'
  | 'upstream-invalid-header'
  | 'upstream-header-too-big'
  | 'upstream-disabled'
  | 'no-live-upstreams'
  | 'port-exhausted'
  | 'too-many-open-files'
  | 'worker-connections-exhausted'
  | 'body-too-large'
  | 'client-closed'
  | 'file-not-found';

/** One row: a message pattern and the kind it means. The first matching row wins. */
export interface ErrorLogPattern {
  kind: ErrorLogKind;
  pattern: RegExp;
}

/**
 * nginx's own wording (1.22), most specific first. Kept as data: supporting a new message is adding a row.
 */
export const ERROR_LOG_PATTERNS: readonly ErrorLogPattern[] = [
  { kind: 'too-many-open-files', pattern: /\(24: Too many open files\)/ },
  { kind: 'worker-connections-exhausted', pattern: /worker_connections are not enough/ },
  { kind: 'port-exhausted', pattern: /\(99: Cannot assign requested address\)/ },
  { kind: 'upstream-refused', pattern: /connect\(\) (?:to \S+ )?failed \(111: Connection refused\)/ },
  {
    kind: 'upstream-connect-failed',
    pattern: /connect\(\) (?:to \S+ )?failed \(\d+: [^)]*\) while connecting to upstream/,
  },
  {
    kind: 'upstream-connect-timeout',
    pattern: /upstream timed out \(110: [^)]*\) while connecting to upstream/,
  },
  { kind: 'upstream-read-timeout', pattern: /upstream timed out \(110: [^)]*\) while (?:reading|sending)/ },
  { kind: 'upstream-reset', pattern: /upstream prematurely closed connection/ },
  {
    kind: 'upstream-reset',
    pattern: /\(104: Connection reset by peer\) while (?:reading|sending)[^,]* (?:from|to) upstream/,
  },
  { kind: 'upstream-invalid-header', pattern: /upstream sent (?:no valid HTTP\/1\.0 header|invalid header)/ },
  { kind: 'upstream-header-too-big', pattern: /upstream sent too big header/ },
  { kind: 'upstream-disabled', pattern: /upstream server temporarily disabled/ },
  { kind: 'no-live-upstreams', pattern: /no live upstreams/ },
  { kind: 'body-too-large', pattern: /client intended to send too large (?:chunked )?body/ },
  { kind: 'client-closed', pattern: /client prematurely closed connection|client closed connection/ },
  { kind: 'file-not-found', pattern: /open\(\) "[^"]+" failed \(2: No such file or directory\)/ },
];
