import { dirname, resolve } from 'node:path';
import { classifyErrorLog } from '../core/diagnose/classify-error-log.js';
import { toConfigEvidence } from '../core/diagnose/config-facts.js';
import type { Finding } from '../core/diagnose/diagnosis-rule.js';
import type { Evidence, SystemEvidence } from '../core/diagnose/evidence.js';
import { DEFAULT_LOG_FORMATS, logFormatsOf } from '../core/diagnose/log-format-candidates.js';
import { accessLogsToRead } from '../core/diagnose/access-logs-to-read.js';
import { parseAccessRecords } from '../core/diagnose/parse-access-records.js';
import { serversWritingLog } from '../core/diagnose/servers-writing-log.js';
import type { AccessRecord } from '../core/diagnose/access-record.js';
import { parseTimeOption } from '../core/logs/parse-time-option.js';
import { accessLogFor, configuredLogs } from '../core/nginx-config/configured-logs.js';
import { rankFindings } from '../core/diagnose/rank-findings.js';
import { symptomStatus, type Symptom } from '../core/diagnose/symptoms.js';
import { statusFacts } from '../core/diagnose/access-facts.js';
import { walkDirectives } from '../core/nginx-config/query.js';
import type { NginxConfig } from '../core/nginx-config/types.js';
import { isProxyopsError, ProxyopsError } from '../core/errors.js';
import { parseNginxConfig } from '../core/nginx-config/parse-nginx-config.js';
import { MAIN_CONFIG_FILE } from '../core/render/render-nginx-config.js';
import { LOG_TAIL_BYTES } from '../shell/logs/read-input-file.js';
import { readLogFamily } from '../shell/logs/read-log-family.js';
import { chooseRunningNginx, readRunningConfig, type RunningNginx } from '../shell/nginx/running-nginx.js';
import { readNginxConfig } from '../shell/nginx/read-nginx-config.js';
import { probeUrl } from '../shell/http/probe-url.js';
import { readTimeWaitByEndpoint } from '../shell/process/proc-net-tcp.js';
import { findNginxProcesses } from '../shell/process/proc-process-tree.js';
import { listDeletedOpenFiles, listOpenFds, readMaxOpenFiles } from '../shell/process/proc-fds.js';

/** What `proxyops diagnose` was given. Every source is optional; the more, the better the evidence. */
export interface DiagnoseOptions {
  symptom: Symptom;
  accessLog?: string;
  errorLog?: string;
  config?: string;
  spec?: string;
  url?: string;
  /** Durations (15m: that long ago), ISO 8601 or nginx time_local, as `logs stats` takes them. */
  since?: string;
  until?: string;
  pidFile?: string;
  insecure?: boolean;
  /** Let --url probes send request bodies (POST); without it they are GET and HEAD only. */
  probeWrites?: boolean;
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
  const { renderConfigFile } = await import('../config/render-config.js');
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

/** Where the logs come from: the flags, else the running nginx's config (its prefix resolves relative paths). */
interface LogSources {
  accessLogs: string[];
  errorLogs: string[];
  running: RunningNginx | null;
  /** Logs of the config left unread, and why. */
  notes: string[];
}

function logSourcesOf(
  options: DiagnoseOptions,
  config: NginxConfig | null,
  running: RunningNginx | null,
): LogSources {
  if (!running || !config)
    return {
      accessLogs: options.accessLog ? [options.accessLog] : [],
      errorLogs: options.errorLog ? [options.errorLog] : [],
      running,
      notes: [],
    };
  const access = accessLogsToRead(config, running.prefix);
  return {
    accessLogs: access.read.map((log) => log.path),
    errorLogs: configuredLogs(config, running.prefix)
      .filter((log) => log.kind === 'error')
      .map((log) => log.path),
    running,
    notes: access.sameRequests.map(
      ({ log, readInstead }) =>
        `access log ${log.path} (${log.where}) not read: it writes the same requests as ${readInstead.path} (${readInstead.where}), read instead`,
    ),
  };
}

/**
 * Gathers evidence for a symptom from every source given (logs, config or spec, the system, live
 * probes last so their own requests do not show up in the logs read) and ranks the findings. With
 * no file flag, the sources are the running nginx's: its config, and the logs that config writes.
 */
export async function diagnose(options: DiagnoseOptions): Promise<DiagnoseResult> {
  if (options.url !== undefined) checkProbeUrl(options.url);
  const nowMs = (options.now ?? new Date()).getTime();
  const sinceMs = options.since !== undefined ? parseTimeOption(options.since, '--since', nowMs) : null;
  const untilMs = options.until !== undefined ? parseTimeOption(options.until, '--until', nowMs) : null;
  if (sinceMs !== null && untilMs !== null && sinceMs >= untilMs)
    throw new ProxyopsError('BAD_OPTION', '--since must be before --until');
  const fileFlags = [options.accessLog, options.errorLog, options.config, options.spec];
  const sources: string[] = [];
  const running = fileFlags.every((flag) => flag === undefined) ? await findRunning(options, sources) : null;
  if (!SYSTEM_SYMPTOMS.includes(options.symptom) && !running && [...fileFlags, options.url].every((s) => !s))
    throw new ProxyopsError(
      'BAD_OPTION',
      `diagnose ${options.symptom} needs evidence: no nginx runs here; give --access-log, --error-log, --config, --spec or --url`,
    );
  const inWindow = (time: Date | null) =>
    time === null ||
    ((sinceMs === null || time.getTime() >= sinceMs) && (untilMs === null || time.getTime() < untilMs));

  const config = running ? await readRunningConfig(running) : await loadConfig(options);
  const logs = logSourcesOf(options, config, running);
  if (running)
    sources.push(
      `running nginx pid ${running.pid} (${running.binary} -p ${running.prefix} -c ${running.configFile})`,
    );
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
  const records: AccessRecord[] = [];
  let splitKnown = true;
  let connectKnown = true;
  sources.push(...logs.notes);
  for (const path of logs.accessLogs) {
    const family = await readLogFamily(path, '--access-log', sinceMs);
    const own = config && running ? accessLogFor(config, running.prefix, path) : null;
    const formats = [
      ...(own ? [own.spec] : []),
      ...(config ? logFormatsOf(config) : []),
      ...DEFAULT_LOG_FORMATS,
    ];
    const read = parseAccessRecords(family.text, formats, `access log ${path}`);
    // A log named on the command line that holds no request leaves nothing to diagnose from: stop, as logs stats does.
    if (read.records.length === 0 && options.accessLog !== undefined)
      throw noAccessRecords(family.files, read.probeLines);
    const kept = read.records.filter((r) => inWindow(r.time));
    // Which servers answered these records, as far as the config's access_log lines tell.
    const servers = config ? serversWritingLog(config, running?.prefix ?? null, resolve(path)) : null;
    if (servers) for (const record of kept) record.servers = servers;
    records.push(...kept);
    splitKnown &&= read.splitKnown;
    connectKnown &&= read.connectKnown;
    const notes = [
      `${kept.length} records`,
      ...(read.format !== null ? [`format ${read.format}`] : []),
      ...(family.truncated ? [TAIL_NOTE] : []),
      ...(read.probeLines > 0 ? [`${read.probeLines} proxyops probe lines left out`] : []),
      ...read.unknown.map(({ figure, needs }) => `${figure} unknown (no ${needs.join(', ')})`),
    ];
    sources.push(`access log ${family.files.join(' + ')} (${notes.join('; ')})`);
  }
  if (logs.accessLogs.length > 0)
    evidence.access = { source: logs.accessLogs.join(', '), records, splitKnown, connectKnown };
  for (const path of logs.errorLogs) {
    const family = await readLogFamily(path, '--error-log', sinceMs);
    const text = Buffer.from(family.text, 'latin1').toString('utf8');
    const lines = classifyErrorLog(text).filter((l) => inWindow(l.time));
    evidence.errors = {
      source: logs.errorLogs.join(', '),
      lines: [...(evidence.errors?.lines ?? []), ...lines],
    };
    sources.push(
      `error log ${family.files.join(' + ')} (${lines.length} recognised lines${family.truncated ? `; ${TAIL_NOTE}` : ''})`,
    );
  }
  if (SYSTEM_SYMPTOMS.includes(options.symptom)) {
    const logFiles = [...logs.accessLogs, ...logs.errorLogs, ...logPathsOf(config)];
    evidence.system = await gatherSystem(options, [...new Set(logFiles.map((file) => dirname(file)))]);
    sources.push(`system (/proc: ${evidence.system.nginxProcesses.length} nginx processes)`);
  }
  if (options.url && !PROBED_SYMPTOMS.includes(options.symptom)) {
    sources.push(`no probe: --url tells nothing about ${options.symptom}`);
  } else if (options.url) {
    const bodyLimits = options.symptom === '413' && options.probeWrites === true;
    evidence.probe = await probeUrl({ url: options.url, bodyLimits, insecure: options.insecure });
    sources.push(
      `probe ${options.url} (GET, HEAD${bodyLimits ? `, POST bodies` : ''}${evidence.probe.failures.length > 0 ? `; ${evidence.probe.failures.join('; ')}` : ''})`,
    );
    if (options.symptom === '413' && !bodyLimits)
      sources.push(
        'missing: body-limit probe (it sends POST bodies to the URL); add --probe-writes to run it',
      );
  }
  sources.push(...missingEvidence(evidence, options.symptom));
  return { symptom: options.symptom, sources, findings: rankFindings(evidence) };
}

/** An access log given with --access-log had no request in it: exit 2 with what to give instead. */
function noAccessRecords(files: string[], probeLines: number): ProxyopsError {
  const what = probeLines > 0 ? `holds only ${probeLines} lines of proxyops' own probes` : 'is empty';
  return new ProxyopsError(
    'LOG_EMPTY',
    `--access-log ${files.join(' + ')}: ${what}, no request to diagnose from; give the file nginx writes the requests to (the access_log line of its config), or leave --access-log out`,
  );
}

/**
 * The running nginx to read. With --url the probe is evidence enough: several masters then only
 * leave a note instead of stopping the run.
 */
async function findRunning(options: DiagnoseOptions, sources: string[]): Promise<RunningNginx | null> {
  try {
    return await chooseRunningNginx(options.pidFile);
  } catch (error) {
    if (options.url === undefined || options.pidFile !== undefined || !isProxyopsError(error)) throw error;
    sources.push(`no running nginx read: ${error.message}`);
    return null;
  }
}

/** The evidence that was not there to read, so a short list of findings says why it may be short. */
function missingEvidence(evidence: Evidence, symptom: Symptom): string[] {
  const missing: string[] = [];
  const status = symptomStatus(symptom);
  const seen = status === null ? 0 : statusFacts(evidence, status).total;
  // The access log shows that the symptom happened; without the error log nothing says why.
  if (!evidence.errors)
    missing.push(
      seen > 0
        ? `missing: no error log: ${seen} ${status}s in the access log, cause unknown without it (give --error-log, or run where nginx runs)`
        : 'missing: no error log (give --error-log, or run where nginx runs)',
    );
  if (!evidence.config) missing.push('missing: no nginx config (give --config or --spec)');
  if (!evidence.access && symptom !== 'disk') missing.push('missing: no access log (give --access-log)');
  return missing;
}
