import { ProxyopsError } from '../errors.js';
import { applySpecDefaults, type ProxySpecInput } from './apply-spec-defaults.js';
import { checkSpecSchema } from './check-spec-schema.js';
import { CROSS_FIELD_RULES } from './cross-field-rules.js';
import { parseSpecText } from './parse-spec-text.js';
import type { ProxySpec } from './proxy-spec.js';
import { formatSpecProblem, type SpecProblem } from './spec-problem.js';

/** Runs every cross-field rule on a defaulted spec; the findings carry their rule id. */
export function checkCrossFieldRules(spec: ProxySpec): SpecProblem[] {
  return CROSS_FIELD_RULES.flatMap((rule) => rule.check(spec).map((f) => ({ ...f, rule: rule.id })));
}

/** Schema, then defaults, then cross-field rules; returns the full spec or throws SPEC_INVALID listing every problem. */
export function validateSpec(data: unknown, source: string): ProxySpec {
  const schemaProblems = checkSpecSchema(data);
  if (schemaProblems.length > 0) throw invalid(schemaProblems, source);
  const spec = applySpecDefaults(data as ProxySpecInput);
  const crossProblems = checkCrossFieldRules(spec);
  if (crossProblems.length > 0) throw invalid(crossProblems, source);
  return spec;
}

/** Parses and validates spec text in one step. */
export function parseSpec(text: string, source: string): ProxySpec {
  return validateSpec(parseSpecText(text, source), source);
}

function invalid(problems: SpecProblem[], source: string): ProxyopsError {
  const lines = problems.map(formatSpecProblem);
  const head = `${source}: invalid spec (${problems.length} problem${problems.length === 1 ? '' : 's'})`;
  return new ProxyopsError('SPEC_INVALID', [head, ...lines.map((l) => `  ${l}`)].join('\n'), {
    details: problems,
  });
}
