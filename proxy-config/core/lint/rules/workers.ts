import {
  childrenNamed,
  isMainConfig,
  listServers,
  rootBlock,
  walkDirectives,
} from '../../nginx-config/query.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';

/** nginx's default worker_connections. */
const DEFAULT_WORKER_CONNECTIONS = 512;

/**
 * The soft open-files limit a worker inherits without worker_rlimit_nofile: systemd's default
 * LimitNOFILE soft value and the usual shell `ulimit -n`. nginx's default 512 connections fit it.
 */
const INHERITED_NOFILE = 1024;

/** §8: the file descriptor limit is raised together with worker settings. */
export const WORKER_RLIMIT_NOFILE_LOW: LintRule = {
  id: 'worker-rlimit-nofile-low',
  severity: 'warning',
  title: 'worker_rlimit_nofile missing or below 2 × worker_connections',
  message:
    'A proxied request holds two descriptors (client and upstream) plus log and temp files. Below 2 × worker_connections, workers hit "Too many open files" under load and answer 502/500 before reaching their connection limit.',
  fix: 'worker_rlimit_nofile at least 2 × worker_connections, at the top of nginx.conf next to worker_processes (not inside events, where nginx refuses it): e.g. worker_rlimit_nofile 8192; for worker_connections 4096',
  runbook: RUNBOOKS.fileDescriptors,
  test: (config) => {
    if (!isMainConfig(config)) return [];
    const root = rootBlock(config);
    const events = childrenNamed(root, 'events')[0];
    const setting = events ? childrenNamed(events, 'worker_connections')[0] : undefined;
    const connections = Number(setting?.args[0] ?? DEFAULT_WORKER_CONNECTIONS);
    const need = 2 * connections;
    const limit = childrenNamed(root, 'worker_rlimit_nofile')[0];
    if (!limit) {
      if (need <= INHERITED_NOFILE) return [];
      const where = events ?? config.directives[0];
      return [
        {
          file: where?.file ?? config.mainFile,
          line: where?.line ?? 1,
          what: `worker_rlimit_nofile is not set: workers keep the inherited limit (often ${INHERITED_NOFILE}) with worker_connections ${connections}; set it to ${need} or more`,
        },
      ];
    }
    const value = Number(limit.args[0]);
    if (Number.isFinite(value) && value >= need) return [];
    return [
      {
        file: limit.file,
        line: limit.line,
        directive: limit,
        what: `worker_rlimit_nofile ${limit.args[0] ?? ''} is below 2 × worker_connections ${connections}: set it to ${need} or more`,
      },
    ];
  },
};

/** The Server header should say which layer answered, not which nginx build (and version) runs. */
export const SERVER_TOKENS_ON: LintRule = {
  id: 'server-tokens-on',
  severity: 'warning',
  title: 'server_tokens on',
  message:
    'server_tokens defaults to on: every response and error page carries the exact nginx version, which tells scanners which CVEs to try. The Server header is for telling which layer answered, not the version.',
  fix: 'server_tokens off; at http level',
  runbook: RUNBOOKS.whichLayer,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (directive) => {
      if (directive.name === 'server_tokens' && directive.args[0] !== 'off')
        hits.push({
          file: directive.file,
          line: directive.line,
          directive: directive,
          what: `server_tokens ${directive.args.join(' ')}`,
        });
    });
    if (!isMainConfig(config)) return hits;
    for (const http of childrenNamed(rootBlock(config), 'http')) {
      if (childrenNamed(http, 'server_tokens').length > 0) continue;
      const inheriting = listServers(config).filter(
        ({ chain, block }) => chain.includes(http) && childrenNamed(block, 'server_tokens').length === 0,
      );
      if (inheriting.length > 0)
        hits.push({
          file: http.file,
          line: http.line,
          directive: http,
          what: 'server_tokens is not set, so it is on (the default)',
        });
    }
    return hits;
  },
};
