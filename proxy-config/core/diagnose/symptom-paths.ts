import type { Evidence } from './evidence.js';
import { symptomStatus } from './symptoms.js';

function withoutQuery(path: string): string {
  return path.split('?')[0] ?? path;
}

/** The request paths the evidence ties to the symptom: access-log records with its status, error-log requests, the probed URL. */
export function symptomPaths(evidence: Evidence): string[] {
  const status = symptomStatus(evidence.symptom);
  const paths = new Set<string>();
  for (const record of evidence.access?.records ?? []) {
    if (record.status === status && record.path) paths.add(withoutQuery(record.path));
  }
  for (const line of evidence.errors?.lines ?? []) {
    const target = line.request?.split(' ')[1];
    if (target) paths.add(withoutQuery(target));
  }
  if (evidence.probe) {
    try {
      paths.add(new URL(evidence.probe.url).pathname);
    } catch {
      // an unparsable URL names no path
    }
  }
  return [...paths];
}
