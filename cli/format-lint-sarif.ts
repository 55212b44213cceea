import { isAbsolute, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LintRule } from '../proxy-config/core/lint/types.js';
import type { LintReport, LintSeverity } from '../proxy-config/config/lint-config.js';

/** Where the SARIF document's links point. */
export interface SarifOptions {
  /** Files under this directory are given relative to it (SARIF's %SRCROOT%), as code-scanning UIs expect. */
  cwd: string;
  /** A file: URL of the directory holding `runbooks/` (the installed package), for each rule's helpUri. */
  runbookBase: string;
  toolVersion: string;
}

/** SARIF's levels are ours: error, warning and note. */
const level = (severity: LintSeverity): 'error' | 'warning' | 'note' => severity;

const SRCROOT = 'SRCROOT';

/** A file as a SARIF artifactLocation: relative to %SRCROOT% when under it, else an absolute file: URI. */
function artifactLocation(file: string, cwd: string): { uri: string; uriBaseId?: string } {
  const rel = relative(cwd, file);
  if (rel && !rel.startsWith('..') && !isAbsolute(rel))
    return { uri: rel.split(sep).map(encodeURIComponent).join('/'), uriBaseId: SRCROOT };
  return { uri: pathToFileURL(file).href };
}

/**
 * `config lint --format sarif`: a SARIF 2.1.0 log with one run. Every rule is described (so a
 * code-scanning UI can show the ones that did not fire too), each result points at file and line.
 */
export function toLintSarif(report: LintReport, rules: readonly LintRule[], options: SarifOptions): object {
  const ruleIndex = new Map(rules.map((rule, index) => [rule.id, index]));
  const fileIndex = new Map(report.files.map((file, index) => [file, index]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'proxyops',
            version: options.toolVersion,
            rules: rules.map((rule) => ({
              id: rule.id,
              shortDescription: { text: rule.title },
              fullDescription: { text: rule.message },
              help: {
                text: `Fix: ${rule.fix}${rule.runbook ? `\nRunbook: ${rule.runbook}` : ''}`,
                markdown: `**Fix:** ${rule.fix}${rule.runbook ? `\n\n[Runbook](${new URL(rule.runbook, options.runbookBase).href})` : ''}`,
              },
              ...(rule.runbook ? { helpUri: new URL(rule.runbook, options.runbookBase).href } : {}),
              defaultConfiguration: { level: level(rule.severity) },
              properties: { tags: ['nginx'] },
            })),
          },
        },
        // The nginx the findings hold for: a version-aware result means nothing without it.
        ...(report.nginx ? { properties: { nginx: report.nginx } } : {}),
        originalUriBaseIds: { [SRCROOT]: { uri: pathToFileURL(`${options.cwd}${sep}`).href } },
        artifacts: report.files.map((file) => ({ location: artifactLocation(file, options.cwd) })),
        results: report.findings.map((finding) => ({
          ruleId: finding.ruleId,
          ...(ruleIndex.has(finding.ruleId) ? { ruleIndex: ruleIndex.get(finding.ruleId) } : {}),
          level: level(finding.severity),
          message: {
            text: finding.contexts
              ? `${finding.what} (included in ${finding.contexts.join(', ')})`
              : finding.what,
          },
          locations: [
            {
              physicalLocation: {
                artifactLocation: {
                  ...artifactLocation(finding.file, options.cwd),
                  ...(fileIndex.has(finding.file) ? { index: fileIndex.get(finding.file) } : {}),
                },
                region: { startLine: Math.max(1, finding.line) },
              },
            },
          ],
        })),
      },
    ],
  };
}
