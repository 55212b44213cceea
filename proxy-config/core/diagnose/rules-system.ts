import { formatBytes } from './access-facts.js';
import type { DiagnosisRule } from './diagnosis-rule.js';

/** Diagnoses of "disk full while log files are small" (conventions §4.8, §7.3). */
export const SYSTEM_RULES: readonly DiagnosisRule[] = [
  {
    id: 'rotated-log-held-open',
    severity: 'high',
    title: 'log files were rotated without the reopen signal; deleted files stay open and keep their space',
    symptoms: ['disk'],
    test(evidence) {
      const held = evidence.system?.deletedOpenFiles ?? [];
      if (held.length === 0) return null;
      const total = held.reduce((sum, file) => sum + file.sizeBytes, 0);
      return [
        `system: ${held.length} deleted file(s) still open under ${evidence.system?.logDirs.join(', ') || 'the log directories'}, holding ${formatBytes(total)}`,
        ...held.map(
          (file) =>
            `system: ${file.command} ${file.pid} fd ${file.fd} → ${file.path} (deleted), ${formatBytes(file.sizeBytes)}`,
        ),
      ];
    },
    nextSteps: [
      'Make nginx reopen its logs now: `proxyops logs rotate --log FILE --pid-file PIDFILE` or `kill -USR1 $(cat PIDFILE)`; the space is freed once no process holds the files.',
      'Fix the rotation job to send USR1 after moving the files (logrotate: postrotate, or `proxyops logs rotate`).',
      'Verify: `proxyops diagnose disk` finds nothing and `df` shows the space back.',
    ],
    runbook: 'runbooks/disk-full-small-logs.md#rotation-without-the-reopen-signal',
  },
];
