import { dirname } from 'node:path';
import { classifyErrorLog } from './core/diagnose/classify-error-log.js';
import { toConfigEvidence } from './core/diagnose/config-facts.js';
import type { Finding } from './core/diagnose/diagnosis-rule.js';
import type { Evidence, SystemEvidence } from './core/diagnose/evidence.js';
import { DEFAULT_LOG_FORMATS, logFormatsOf } from './core/diagnose/log-format-candidates.js';
import { parseDuration } from './core/logs/parse-time-option.js';
import { rankFindings } from './core/diagnose/rank-findings.js';
import type { Symptom } from './core/diagnose/symptoms.js';
import { walkDirectives } from './core/nginx-config/query.js';
import type { NginxConfig } from './core/nginx-config/types.js';
import { ProxyopsError } from './core/errors.js';
import { parseNginxConfig } from './core/nginx-config/parse-nginx-config.js';
import { MAIN_CONFIG_FILE } from './core/render/render-nginx-config.js';
import { readAccessRecords } from './shell/read-access-records.js';
import { LOG_TAIL_BYTES, readFileTail } from './shell/read-input-file.js';
import { readNginxConfig } from './shell/read-nginx-config.js';
import { probeUrl } from './shell/probe-url.js';
import { readTimeWaitByEndpoint } from './shell/proc-net-tcp.js';
import { findNginxProcesses } from './shell/proc-process-tree.js';
import { listDeletedOpenFiles, listOpenFds, readMaxOpenFiles } from './shell/proc-fds.js';

/** What `proxyops diagnose` was given. Every source is optional; the more, the better the evidence. */
export interface DiagnoseOptions {
  symptom: Symptom;
  accessLog?: string;
  errorLog?: string;
  config?: string;
  spec?: string;
  url?: string;
  since?: string;
  pidFile?: string;
  insecure?: boolean;
  now?: Date;
}

/** Ranked findings and the sources they were drawn from. */
export interface DiagnoseResult {
  symptom: Symptom;
  sources: string[];
  findings: Finding[];
}

const TAIL_NOTE = `only its last ${LOG_TAIL_BYTES / 1024 / 1024} MiB`;
const SYSTEM_SYMPTOMS: readonly Symptom[] = ['502', 'disk'];
const PROBED_SYMPTOMS: readonly Symptom[] = ['413', '502', '504', 'redirect-loop', 'stale-html'];

async function loadConfig(options: DiagnoseOptions): Promise<NginxConfig | null> {
  if (options.config && options.spec)
    throw new ProxyopsError('BAD_OPTION', 'give --config or --spec, not both');
  if (options.config) return readNginxConfig(options.config);
  if (!options.spec) return null;
  const { renderConfigFile } = await import('./render-config.js');
  const { files } = await renderConfigFile(options.spec);
  const file = `${options.spec} (rendered ${MAIN_CONFIG_FILE})`;
  return { mainFile: file, files: [file], directives: parseNginxConfig(files[MAIN_CONFIG_FILE] ?? '', file) };
}

function logPathsOf(config: NginxConfig | null): string[] {
  const paths: string[] = [];
  if (!config) return paths;
  walkDirectives(config, (directive) => {
    const path = directive.args[0];
    if ((directive.name === 'access_log' || directive.name === 'error_log') && path?.startsWith('/'))
      paths.push(path);
  });
  return paths;
}

async function gatherSystem(options: DiagnoseOptions, logDirs: string[]): Promise<SystemEvidence> {
  const processes = await findNginxProcesses(options.pidFile);
  const masters = new Set(processes.filter((p) => p.cmdline.startsWith('nginx: master')).map((p) => p.pid));
  const nginxProcesses = await Promise.all(
    processes.map(async (p) => ({
      pid: p.pid,
      role: masters.has(p.pid)
        ? ('master' as const)
        : p.cmdline.startsWith('nginx: worker')
          ? ('worker' as const)
          : ('other' as const),
      openFiles: (await listOpenFds(p.pid)).length,
      maxOpenFiles: await readMaxOpenFiles(p.pid),
    })),
  );
  const nginxPids = new Set(processes.map((p) => p.pid));
  const deleted = options.symptom === 'disk' ? await listDeletedOpenFiles(logDirs) : [];
  return {
    timeWaitByEndpoint: options.symptom === '502' ? await readTimeWaitByEndpoint() : {},
    nginxProcesses,
    deletedOpenFiles: logDirs.length > 0 ? deleted : deleted.filter((file) => nginxPids.has(file.pid)),
    logDirs,
  };
}

/** --url is checked before anything is read: probes run last, and a bad URL is bad input (exit 2). */
function checkProbeUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:')
    throw new ProxyopsError('BAD_OPTION', `--url "${url}" is not an http:// or https:// URL`);
  // Port 0 names no port: the HTTP client would quietly connect to the scheme's default instead.
  if (parsed.port === '0') throw new ProxyopsError('BAD_OPTION', `--url "${url}" names port 0`);
}

/**
 * Gathers evidence for a symptom from every source given (logs, config or spec, the system, live
 * probes last so their own requests do not show up in the logs read) and ranks the findings.
 */
export async function diagnose(options: DiagnoseOptions): Promise<DiagnoseResult> {
  if (options.url !== undefined) checkProbeUrl(options.url);
  const sinceMs = options.since !== undefined ? parseDuration(options.since, '--since') : null;
  const given = [options.accessLog, options.errorLog, options.config, options.spec, options.url];
  if (!SYSTEM_SYMPTOMS.includes(options.symptom) && given.every((source) => source === undefined))
    throw new ProxyopsError(
      'BAD_OPTION',
      `diagnose ${options.symptom} needs evidence: give --access-log, --error-log, --config, --spec or --url`,
    );
  const cutoff = sinceMs === null ? null : (options.now ?? new Date()).getTime() - sinceMs;
  const recent = (time: Date | null) => cutoff === null || time === null || time.getTime() >= cutoff;
  const sources: string[] = [];

  const config = await loadConfig(options);
  const evidence: Evidence = {
    symptom: options.symptom,
    access: null,
    errors: null,
    config: null,
    probe: null,
    system: null,
  };
  if (config) {
    evidence.config = toConfigEvidence(config);
    sources.push(`config ${evidence.config.source} (${evidence.config.locations.length} locations)`);
  }
  if (options.accessLog) {
    const formats = [...(config ? logFormatsOf(config) : []), ...DEFAULT_LOG_FORMATS];
    const read = await readAccessRecords(options.accessLog, formats);
    const records = read.records.filter((r) => recent(r.time));
    evidence.access = {
      source: options.accessLog,
      records,
      splitKnown: read.splitKnown,
      connectKnown: read.connectKnown,
    };
    const notes = [
      `${records.length} records`,
      `format ${read.format}`,
      ...(read.truncated ? [TAIL_NOTE] : []),
      ...(read.splitKnown
        ? []
        : ['no $upstream_header_time, so proxy-made and upstream-made responses cannot be told apart']),
    ];
    sources.push(`access log ${options.accessLog} (${notes.join('; ')})`);
  }
  if (options.errorLog) {
    const tail = await readFileTail(options.errorLog, '--error-log', 'utf8');
    const lines = classifyErrorLog(tail.text).filter((l) => recent(l.time));
    evidence.errors = { source: options.errorLog, lines };
    sources.push(
      `error log ${options.errorLog} (${lines.length} recognised lines${tail.truncated ? `; ${TAIL_NOTE}` : ''})`,
    );
  }
  if (SYSTEM_SYMPTOMS.includes(options.symptom)) {
    const logFiles = [options.accessLog, options.errorLog, ...logPathsOf(config)].filter(
      (p): p is string => !!p,
    );
    evidence.system = await gatherSystem(options, [...new Set(logFiles.map((file) => dirname(file)))]);
    sources.push(`system (/proc: ${evidence.system.nginxProcesses.length} nginx processes)`);
  }
  if (options.url && !PROBED_SYMPTOMS.includes(options.symptom)) {
    sources.push(`no probe: --url tells nothing about ${options.symptom}`);
  } else if (options.url) {
    evidence.probe = await probeUrl({
      url: options.url,
      bodyLimits: options.symptom === '413',
      insecure: options.insecure,
    });
    sources.push(
      `probe ${options.url}${evidence.probe.failures.length > 0 ? ` (${evidence.probe.failures.join('; ')})` : ''}`,
    );
  }
  return { symptom: options.symptom, sources, findings: rankFindings(evidence) };
}
