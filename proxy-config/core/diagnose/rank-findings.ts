import { DIAGNOSIS_RULES } from './diagnosis-rules.js';
import { SEVERITY_ORDER, type DiagnosisRule, type Finding } from './diagnosis-rule.js';
import type { Evidence } from './evidence.js';
import { symptomStatus } from './symptoms.js';

/** What clients saw of a cause: some responses first, then unknown, then none. */
function impactGroup(count: number | null): number {
  return count === null ? 1 : count > 0 ? 0 : 2;
}

/** How many responses with the symptom's status the access log holds. */
function symptomTotal(evidence: Evidence): number {
  const status = symptomStatus(evidence.symptom);
  return (evidence.access?.records ?? []).filter((record) => record.status === status).length;
}

/** The evidence line of a known client count: how many of the symptom's responses came from this cause. */
function clientLine(evidence: Evidence, count: number): string {
  const total = symptomTotal(evidence);
  return count === 0
    ? `access log: clients saw none of the ${total} ${evidence.symptom}s from this cause`
    : `access log: clients saw ${count} of the ${total} ${evidence.symptom}s from this cause`;
}

/**
 * Runs the rules that explain the evidence's symptom and ranks what applied by what clients saw (the
 * causes of the most responses with the symptom first; a cause no client saw, such as a stopped server
 * nginx retried past, last and at low severity), then severity, then table order.
 */
export function rankFindings(
  evidence: Evidence,
  rules: readonly DiagnosisRule[] = DIAGNOSIS_RULES,
): Finding[] {
  const total = symptomTotal(evidence);
  const applied = rules
    .map((rule, order) => ({ rule, order }))
    .filter(({ rule }) => rule.symptoms.includes(evidence.symptom))
    .map(({ rule, order }) => ({ rule, order, lines: rule.test(evidence) }))
    .filter((entry): entry is { rule: DiagnosisRule; order: number; lines: string[] } => entry.lines !== null)
    .map((entry) => {
      // A log holding none of the symptom (only a probe found it) tells nothing of what clients saw.
      const count = total === 0 ? null : (entry.rule.clientCount?.(evidence) ?? null);
      const severity = count === 0 ? ('low' as const) : entry.rule.severity;
      const lines = count === null ? entry.lines : [...entry.lines, clientLine(evidence, count)];
      return { ...entry, count, severity, lines };
    });
  applied.sort(
    (a, b) =>
      impactGroup(a.count) - impactGroup(b.count) ||
      (b.count ?? 0) - (a.count ?? 0) ||
      SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
      a.order - b.order,
  );
  return applied.map(({ rule, lines, severity }, index) => ({
    rank: index + 1,
    id: rule.id,
    severity,
    title: rule.title,
    evidence: lines,
    nextSteps: [...rule.nextSteps],
    runbook: rule.runbook,
  }));
}
