import { ProxyopsError } from '../errors.js';

/** The symptoms `proxyops diagnose` takes. */
export const SYMPTOMS = [
  '413',
  '502',
  '504',
  '499',
  'redirect-loop',
  'stale-html',
  'disk',
  'trailing-slash',
] as const;

/** A symptom name. */
export type Symptom = (typeof SYMPTOMS)[number];

/** Validates a symptom argument. */
export function parseSymptom(text: string): Symptom {
  if ((SYMPTOMS as readonly string[]).includes(text)) return text as Symptom;
  throw new ProxyopsError('BAD_OPTION', `unknown symptom "${text}"; expected one of ${SYMPTOMS.join(', ')}`);
}

/** The HTTP status a symptom is about, when it is one. */
export function symptomStatus(symptom: Symptom): number | null {
  return /^\d{3}$/.test(symptom) ? Number(symptom) : null;
}
