import { childrenNamed, isMainConfig, rootBlock, walkDirectives } from '../../nginx-config/query.js';
import type { LintRule, RuleHit } from '../types.js';

/** gixy's missing_worker_processes; whole configs only (a snippet has no main context). */
export const WORKER_PROCESSES_MISSING: LintRule = {
  id: 'worker-processes-missing',
  severity: 'warning',
  title: 'worker_processes not set',
  message:
    'Without worker_processes nginx runs a single worker: one CPU core serves every connection, TLS handshake and gzip, and the rest of the machine idles while requests queue.',
  fix: 'worker_processes auto; at the top of nginx.conf',
  runbook: null,
  test: (config) => {
    if (!isMainConfig(config)) return [];
    const root = rootBlock(config);
    if (childrenNamed(root, 'worker_processes').length > 0) return [];
    // Written in a block nginx refuses it in: directive-not-allowed says so.
    let misplaced = false;
    walkDirectives(config, (d) => {
      if (d.name === 'worker_processes' && d.notAllowedIn !== undefined) misplaced = true;
    });
    if (misplaced) return [];
    const where = childrenNamed(root, 'events')[0] ?? config.directives[0];
    return [
      {
        file: where?.file ?? config.mainFile,
        line: where?.line ?? 1,
        what: 'worker_processes is not set: nginx starts one worker',
      },
    ];
  },
};

/** gixy's error_log_off: `off` is not a keyword of error_log. */
export const ERROR_LOG_OFF: LintRule = {
  id: 'error-log-off',
  severity: 'warning',
  title: 'error_log off writes to a file named "off"',
  message:
    'error_log has no "off": nginx logs to a file called off in its prefix directory (/usr/share/nginx/off, /etc/nginx/off), which grows unwatched and unrotated, while the place everyone looks stays empty during an incident.',
  fix: 'keep an error log (error_log /var/log/nginx/error.log warn;); to really discard it: error_log /dev/null crit;',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (d.name === 'error_log' && d.args[0] === 'off')
        hits.push({ file: d.file, line: d.line, what: `error_log ${d.args.join(' ')}` });
    });
    return hits;
  },
};
