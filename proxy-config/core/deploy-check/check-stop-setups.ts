import { parse as parseYaml } from 'yaml';
import { planDrainTiming, type HealthCheckTiming } from '../deploy/drain-timing.js';
import { ProxyopsError } from '../errors.js';
import type { LintFinding, LintReport } from '../lint/types.js';
import { DEPLOY_CHECK_RULES, type CheckedDrain, type DeployCheckRule } from './deploy-check-rules.js';
import { readComposeFile } from './read-compose.js';
import { readKubernetesManifest } from './read-kubernetes.js';
import { looksLikeSystemdUnit, readSystemdUnit } from './read-systemd-unit.js';
import type { ReadStopSetups, StopSetup } from './stop-setup.js';

/** A `deploy check` finding: a lint finding plus the numbers its rule computed. */
export interface DeployCheckFinding extends LintFinding {
  numbers: Record<string, number | null>;
}

/** The report of `deploy check`: shaped as `config lint`'s, plus the notes on what was passed over. */
export interface DeployCheckReport extends LintReport {
  findings: DeployCheckFinding[];
  notes: string[];
}

/** What the drain is computed from where a file declares no readiness check (seconds), and the finish allowance. */
export interface DeployCheckOptions {
  healthCheck: HealthCheckTiming;
  finishSeconds: number;
}

/**
 * Reads one file as whichever of the three it is: a systemd unit (a `[Service]` section), a compose
 * file (YAML with `services`), else a Kubernetes manifest (YAML documents with `kind`). Anything else
 * throws DEPLOY_CHECK_INPUT_INVALID.
 */
export function readStopSetups(file: string, text: string): ReadStopSetups {
  const template = templateLine(text);
  if (template !== undefined)
    throw new ProxyopsError(
      'DEPLOY_CHECK_INPUT_INVALID',
      `${file}:${template}: a template ({{ … }}), not a manifest: render it first (helm template RELEASE CHART > rendered.yaml, or your template tool) and check the output`,
    );
  if (looksLikeSystemdUnit(text)) return readSystemdUnit(file, text);
  let first: unknown;
  try {
    first = parseYaml(text.split(/^---\s*$/m).find((doc) => doc.trim() !== '') ?? '', {
      logLevel: 'error',
    });
  } catch {
    first = undefined;
  }
  if (first !== null && typeof first === 'object' && 'services' in first && !('kind' in first))
    return readComposeFile(file, text);
  if (first !== null && typeof first === 'object' && ('kind' in first || 'apiVersion' in first))
    return readKubernetesManifest(file, text);
  throw new ProxyopsError(
    'DEPLOY_CHECK_INPUT_INVALID',
    `${file}: not a Kubernetes manifest, systemd unit or compose file`,
  );
}

/**
 * The line of the first Helm/Go/Jinja template action: `{{` starting a line or an unquoted value, or a
 * Helm one (`.Values`, `include`, `toYaml`…) anywhere. A quoted `"{{.Name}}"` alone (a compose logging
 * tag) is a plain string. Read as YAML, a template gives objects for names and NaN for numbers.
 */
function templateLine(text: string): number | undefined {
  const at = text.search(
    /^[ \t]*(?:-[ \t]+)?\{\{|:[ \t]+\{\{|\{\{-?\s*(?:\.Values|\.Release|\.Chart|include|toYaml|template|if|range|with)\b/m,
  );
  return at < 0 ? undefined : text.slice(0, at).split('\n').length;
}

/** The drain a workload must allow for: its own readiness check when it declares one, else the options'. */
export function drainFor(setup: StopSetup, options: DeployCheckOptions): CheckedDrain {
  const r = setup.readiness;
  const s = (ms: number) => `${Number((ms / 1000).toFixed(3))} s`;
  const timing = r
    ? planDrainTiming({
        interval: r.periodMs / 1000,
        failureThreshold: r.threshold,
        margin: options.healthCheck.margin,
      })
    : planDrainTiming(options.healthCheck);
  const detectFrom = r
    ? setup.source === 'kubernetes'
      ? `periodSeconds ${s(r.periodMs)} × failureThreshold ${r.threshold}`
      : `healthcheck interval ${s(r.periodMs)} × retries ${r.threshold}`
    : `interval ${s(options.healthCheck.interval * 1000)} × threshold ${options.healthCheck.failureThreshold} (--interval, --threshold)`;
  return { ...timing, detectFrom, finishMs: Math.round(options.finishSeconds * 1000) };
}

/** Runs every rule over the workloads of the files read (pure). */
export function checkStopSetups(
  files: { file: string; read: ReadStopSetups }[],
  options: DeployCheckOptions,
  rules: readonly DeployCheckRule[] = DEPLOY_CHECK_RULES,
): DeployCheckReport {
  const findings: DeployCheckFinding[] = [];
  for (const { read } of files)
    for (const setup of read.setups) {
      const drain = drainFor(setup, options);
      for (const rule of rules)
        for (const hit of rule.test(setup, drain))
          findings.push({
            ruleId: rule.id,
            severity: rule.severity,
            title: rule.title,
            what: hit.what,
            message: rule.message,
            fix: rule.fix,
            runbook: rule.runbook,
            file: hit.place.file,
            line: hit.place.line,
            numbers: hit.numbers,
          });
    }
  const count = (severity: string) => findings.filter((f) => f.severity === severity).length;
  return {
    mainFile: files[0]?.file ?? '',
    files: files.map((f) => f.file),
    findings,
    counts: { error: count('error'), warning: count('warning'), note: count('note'), ignored: 0 },
    notes: files.flatMap((f) => f.read.notes),
  };
}
