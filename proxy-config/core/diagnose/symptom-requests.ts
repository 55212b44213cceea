import { childrenNamed } from '../nginx-config/query.js';
import type { NginxDirective } from '../nginx-config/types.js';
import type { AccessRecord } from './access-record.js';
import type { ErrorLogKind } from './error-log-patterns.js';
import type { ConfigEvidence, Evidence } from './evidence.js';
import { symptomStatus, type Symptom } from './symptoms.js';

/** A request tied to the symptom, and the servers that can have answered it (null: any). */
export interface SymptomRequest {
  path: string;
  servers: readonly NginxDirective[] | null;
}

/**
 * The error-log messages of each symptom: a 413 is not explained by an upstream timing out on
 * another path, so only these lines name the paths of the symptom.
 */
const SYMPTOM_ERROR_KINDS: Partial<Record<Symptom, readonly ErrorLogKind[]>> = {
  '413': ['body-too-large'],
  '502': [
    'upstream-refused',
    'upstream-connect-failed',
    'upstream-reset',
    'upstream-invalid-header',
    'upstream-header-too-big',
    'upstream-disabled',
    'no-live-upstreams',
  ],
  '504': ['upstream-connect-timeout', 'upstream-read-timeout'],
  '499': ['client-closed'],
};

function withoutQuery(path: string): string {
  return path.split('?')[0] ?? path;
}

/** The servers of `config` listening on `port`, narrowed to those naming `name` in server_name when some do. */
function serversListening(
  port: string,
  name: string | null,
  config: ConfigEvidence,
): NginxDirective[] | null {
  const listening = config.servers
    .map((scope) => scope.block)
    .filter((server) =>
      childrenNamed(server, 'listen').some((listen) => {
        const address = listen.args[0] ?? '';
        return address === port || address.endsWith(`:${port}`);
      }),
    );
  const named = listening.filter(
    (server) =>
      name !== null &&
      childrenNamed(server, 'server_name').some((directive) => directive.args.includes(name)),
  );
  const servers = named.length > 0 ? named : listening;
  return servers.length > 0 ? servers : null;
}

/**
 * The servers an error line's Host header points at (nginx writes the header as the client sent it;
 * `server:` is often empty). Null when the header names no port or no server listens there.
 */
function serversForHost(
  host: string | null | undefined,
  config: ConfigEvidence | null,
): NginxDirective[] | null {
  const match = host ? /^(.*):(\d+)$/.exec(host) : null;
  return match && config ? serversListening(match[2]!, match[1]!, config) : null;
}

/** The servers that can have answered a record: those writing its log, on the port it logged when it did. */
function serversForRecord(
  record: AccessRecord,
  config: ConfigEvidence | null,
): readonly NginxDirective[] | null {
  const writing = record.servers ?? null;
  const listening = record.serverPort && config ? serversListening(record.serverPort, null, config) : null;
  if (!listening) return writing;
  const both = writing ? listening.filter((server) => writing.includes(server)) : listening;
  return both.length > 0 ? both : writing;
}

/**
 * The requests the evidence ties to the symptom: the access-log records with its status (the log
 * read is the subject; the error log is shared by every server), else the error-log lines of the
 * symptom's messages; and the probed URL.
 */
export function symptomRequests(evidence: Evidence): SymptomRequest[] {
  const status = symptomStatus(evidence.symptom);
  const requests: SymptomRequest[] = [];
  for (const record of evidence.access?.records ?? []) {
    if (record.status === status && record.path)
      requests.push({ path: withoutQuery(record.path), servers: serversForRecord(record, evidence.config) });
  }
  if (requests.length === 0) {
    const kinds = SYMPTOM_ERROR_KINDS[evidence.symptom] ?? [];
    for (const line of evidence.errors?.lines ?? []) {
      const target = line.request?.split(' ')[1];
      if (target && kinds.includes(line.kind))
        requests.push({ path: withoutQuery(target), servers: serversForHost(line.host, evidence.config) });
    }
  }
  if (evidence.probe) {
    try {
      requests.push({ path: new URL(evidence.probe.url).pathname, servers: null });
    } catch {
      // an unparsable URL names no path
    }
  }
  return requests;
}
