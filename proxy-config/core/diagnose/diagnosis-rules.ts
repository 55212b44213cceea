import type { DiagnosisRule } from './diagnosis-rule.js';
import { BODY_LIMIT_RULES } from './rules-body-limit.js';
import { CAPACITY_RULES } from './rules-capacity.js';
import { HEADER_RULES } from './rules-headers.js';
import { PATH_RULES } from './rules-paths.js';
import { SYSTEM_RULES } from './rules-system.js';
import { TIMEOUT_RULES } from './rules-timeouts.js';
import { UPSTREAM_RULES } from './rules-upstream.js';

/**
 * Every diagnosis rule. Within one severity, table order is the ranking order: more specific
 * explanations come before the general ones they refine.
 */
export const DIAGNOSIS_RULES: readonly DiagnosisRule[] = [
  ...BODY_LIMIT_RULES,
  ...CAPACITY_RULES,
  ...UPSTREAM_RULES,
  ...TIMEOUT_RULES,
  ...HEADER_RULES,
  ...SYSTEM_RULES,
  ...PATH_RULES,
];
