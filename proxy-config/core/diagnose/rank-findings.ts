import { DIAGNOSIS_RULES } from './diagnosis-rules.js';
import { SEVERITY_ORDER, type DiagnosisRule, type Finding } from './diagnosis-rule.js';
import type { Evidence } from './evidence.js';

/** Runs the rules that explain the evidence's symptom and ranks what applied: severity, then table order. */
export function rankFindings(
  evidence: Evidence,
  rules: readonly DiagnosisRule[] = DIAGNOSIS_RULES,
): Finding[] {
  const applied = rules
    .map((rule, order) => ({ rule, order }))
    .filter(({ rule }) => rule.symptoms.includes(evidence.symptom))
    .map(({ rule, order }) => ({ rule, order, lines: rule.test(evidence) }))
    .filter(
      (entry): entry is { rule: DiagnosisRule; order: number; lines: string[] } => entry.lines !== null,
    );
  applied.sort(
    (a, b) =>
      SEVERITY_ORDER.indexOf(a.rule.severity) - SEVERITY_ORDER.indexOf(b.rule.severity) || a.order - b.order,
  );
  return applied.map(({ rule, lines }, index) => ({
    rank: index + 1,
    id: rule.id,
    severity: rule.severity,
    title: rule.title,
    evidence: lines,
    nextSteps: [...rule.nextSteps],
    runbook: rule.runbook,
  }));
}
