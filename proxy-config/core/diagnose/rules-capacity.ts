import type { DiagnosisRule } from './diagnosis-rule.js';
import { describeErrors, errorsOf } from './error-facts.js';
import type { Evidence, LocationFacts } from './evidence.js';
import { knownUpstreams } from './upstream-endpoints.js';

/** TIME_WAIT sockets towards one upstream from which connection churn counts as evidence. */
export const TIME_WAIT_THRESHOLD = 50;

/** Share of the open-file limit from which a process counts as close to exhaustion. */
export const OPEN_FILES_SHARE = 0.9;

function keepaliveGaps(location: LocationFacts): string[] {
  if (!location.proxyPass) return [];
  const gaps: string[] = [];
  if (location.upstreamKeepalive === null) gaps.push('no upstream block with keepalive');
  if (location.proxyHttpVersion !== '1.1') gaps.push(`proxy_http_version ${location.proxyHttpVersion}`);
  if (location.proxySetHeaders['connection'] !== '') gaps.push('Connection header not cleared');
  return gaps;
}

function timeWaitLines(evidence: Evidence): string[] {
  const counts = evidence.system?.timeWaitByEndpoint ?? {};
  return knownUpstreams(evidence)
    .map((upstream) => [upstream, counts[upstream] ?? 0] as const)
    .filter(([, count]) => count >= TIME_WAIT_THRESHOLD)
    .map(
      ([upstream, count]) =>
        `system: ${count} sockets in TIME_WAIT towards ${upstream}: a new connection per request`,
    );
}

/** Diagnoses of "502 at certain hours" (conventions §4.7.6, §7.3): connection churn and descriptor limits. */
export const CAPACITY_RULES: readonly DiagnosisRule[] = [
  {
    id: 'fd-exhausted',
    severity: 'critical',
    title: 'nginx workers run out of file descriptors',
    symptoms: ['502'],
    test(evidence) {
      const errors = errorsOf(evidence, ['too-many-open-files']);
      const connections = errorsOf(evidence, ['worker-connections-exhausted']);
      const near = (evidence.system?.nginxProcesses ?? []).filter(
        (process) =>
          process.maxOpenFiles !== null && process.openFiles >= process.maxOpenFiles * OPEN_FILES_SHARE,
      );
      if (errors.length === 0 && connections.length === 0 && near.length === 0) return null;
      const limits = (evidence.system?.nginxProcesses ?? [])
        .filter((process) => process.role === 'worker')
        .map(
          (process) => `worker ${process.pid}: ${process.openFiles} open of ${process.maxOpenFiles ?? '?'}`,
        );
      const config = evidence.config;
      return [
        ...describeErrors(errors, '(24: Too many open files)'),
        ...describeErrors(connections, 'worker_connections are not enough'),
        ...near.map(
          (process) =>
            `system: nginx ${process.role} ${process.pid} holds ${process.openFiles} of ${process.maxOpenFiles} files`,
        ),
        ...(limits.length > 0 ? [`system: ${limits.join('; ')}`] : []),
        ...(config && (config.workerRlimitNofile !== null || config.workerConnections !== null)
          ? [
              `config: worker_rlimit_nofile ${config.workerRlimitNofile ?? 'unset'}, worker_connections ${config.workerConnections ?? 'unset'}`,
            ]
          : []),
      ];
    },
    nextSteps: [
      'Raise worker_rlimit_nofile together with worker_connections (each proxied request holds two descriptors), and the systemd LimitNOFILE if nginx runs under systemd.',
      'Check the limit the running workers really have: `grep "open files" /proc/$(pgrep -f "nginx: worker" | head -1)/limits`.',
      'Reload nginx and confirm with `proxyops diagnose 502 --pid-file PIDFILE` that the workers have headroom.',
    ],
    runbook: 'runbooks/502-at-certain-hours.md#too-many-open-files',
  },
  {
    id: 'no-upstream-keepalive',
    severity: 'medium',
    title: 'upstream connections are not kept alive: a new connection per request exhausts ports at peak',
    symptoms: ['502'],
    test(evidence) {
      const timeWait = timeWaitLines(evidence);
      const ports = errorsOf(evidence, ['port-exhausted']);
      const config = (evidence.config?.locations ?? [])
        .map((location) => [location, keepaliveGaps(location)] as const)
        .filter(([, gaps]) => gaps.length > 0)
        .map(
          ([location, gaps]) =>
            `config: ${location.where} proxies to ${location.proxyPass} with ${gaps.join(', ')}`,
        );
      if (timeWait.length === 0 && ports.length === 0 && config.length === 0) return null;
      return [...timeWait, ...describeErrors(ports, '(99: Cannot assign requested address)'), ...config];
    },
    nextSteps: [
      'Proxy through an upstream block with `keepalive 32;` (or more), and set `proxy_http_version 1.1;` and `proxy_set_header Connection "";` in the location.',
      "Make the application's keep-alive timeout longer than nginx's upstream keepalive_timeout.",
      'Under load, watch the TIME_WAIT count towards the upstream fall: `proxyops diagnose 502 --access-log FILE`.',
    ],
    runbook: 'runbooks/502-at-certain-hours.md#upstream-keep-alive',
  },
];
