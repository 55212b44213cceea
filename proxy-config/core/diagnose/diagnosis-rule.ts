import type { Evidence } from './evidence.js';
import type { Symptom } from './symptoms.js';

/** How urgent a finding is; rules are ranked by it first. */
export type Severity = 'critical' | 'high' | 'medium' | 'low';

/** Severity order for ranking, most urgent first. */
export const SEVERITY_ORDER: readonly Severity[] = ['critical', 'high', 'medium', 'low'];

/**
 * One diagnosis: which symptoms it explains, a test over the evidence that returns the evidence
 * lines supporting it (null when it does not apply), what to do next and where the runbook says more.
 */
export interface DiagnosisRule {
  id: string;
  severity: Severity;
  title: string;
  symptoms: readonly Symptom[];
  test(evidence: Evidence): string[] | null;
  nextSteps: readonly string[];
  /** `runbooks/FILE.md#anchor`, relative to the repository root. */
  runbook: string;
  /**
   * How many of the symptom's responses clients saw from this cause, when the evidence can tell
   * (null when it cannot): findings are ranked by it first.
   */
  clientCount?(evidence: Evidence): number | null;
}

/** A rule that applied, with the evidence that made it apply. */
export interface Finding {
  rank: number;
  id: string;
  severity: Severity;
  title: string;
  evidence: string[];
  nextSteps: string[];
  runbook: string;
}
