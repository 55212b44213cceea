import type { Finding } from './diagnosis-rule.js';
import type { Symptom } from './symptoms.js';

/** The human report of a diagnosis: ranked findings with evidence, next steps and runbook. */
export function renderFindings(
  symptom: Symptom,
  findings: readonly Finding[],
  sources: readonly string[],
): string {
  const header = `diagnose ${symptom}: looked at ${sources.join(', ')}`;
  if (findings.length === 0) return `${header}\nno finding.\n`;
  const blocks = findings.map((finding) =>
    [
      `${finding.rank}. [${finding.severity}] ${finding.id}: ${finding.title}`,
      '   evidence:',
      ...finding.evidence.map((line) => `     ${line}`),
      '   next:',
      ...finding.nextSteps.map((step) => `     - ${step}`),
      `   runbook: ${finding.runbook}`,
    ].join('\n'),
  );
  return `${header}\n\n${blocks.join('\n\n')}\n`;
}
