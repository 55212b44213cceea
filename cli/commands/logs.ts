import { Option, type Command } from 'commander';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { runAction } from '../run-action.js';
import type { Extent } from './index.js';
import { registerLogsRotate } from './logs-rotate.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The process's streams for a logs command. */
function processIo() {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    // A getter: process.stdin is made on first read, and a run over files never reads it.
    get stdin() {
      return process.stdin;
    },
    env: process.env,
  };
}

/** `proxyops logs stats`: the access-log statistics command. */
function registerLogsStats(logs: Command): void {
  logs
    .command('stats')
    .description(
      'Status codes, 499s, proxy-generated vs upstream-returned errors, upstream timings, per-minute counts',
    )
    .argument(
      '[inputs...]',
      'log files, .gz files, or - for standard input (default: standard input when it is not a terminal, an error when it is empty; with --host: the running nginx’s access logs there)',
    )
    .option(
      '--preset <name>',
      "log format preset: proxyops, proxyops-json, combined, common, main, upstream-time, upstream-time-spaced, ingress-nginx, json (default: the running nginx's format for the file, else detected)",
    )
    .option(
      '--log-format <format>',
      'an nginx log_format string, e.g. \'$remote_addr [$time_local] "$request" $status\'',
    )
    .addOption(
      new Option('--escape <mode>', 'escape mode of --log-format').choices(['default', 'json', 'none']),
    )
    .option(
      '--nginx-conf <file>',
      'read the format from this nginx config: the access_log line writing the files, or --format-name',
    )
    .option('--format-name <name>', 'the log_format name to read from --nginx-conf')
    .option('--since <time>', 'only records at or after: ISO 8601, time_local, epoch seconds, or 15m (ago)')
    .option('--until <time>', 'only records before this time (same forms as --since)')
    .option('--status <list>', 'only these statuses: 5xx, 499, 500-504, comma-separated')
    .option('--path <prefix>', 'only paths with this prefix, or matching ~REGEX (~*REGEX: any case)')
    .option(
      '--upstream <address>',
      'only requests that tried this upstream (repeatable; a host matches any port)',
      collect,
    )
    .option('--json', 'one JSON document (schema in docs/access-logs.md)')
    .option('--ndjson', 'one JSON summary per interval')
    .option('--prom', 'the Prometheus metrics (as --prom-textfile writes them) on stdout')
    .option('--html <file>', 'also write a self-contained HTML report with charts')
    .option(
      '--fail-if <expr>',
      "exit 1 when this holds, e.g. '5xx_ratio>0.01' or '499>100' (repeatable)",
      collect,
    )
    .option('--follow', 'keep reading as the logs grow, across rotation and truncation')
    .option(
      '--serve <host:port>',
      'with --follow, serve the live HTML report at http://HOST:PORT/ (updated in place; the same HOST:PORT as --metrics-listen shares one listener)',
    )
    .option(
      '--interval <duration>',
      'timeline bucket (default 1m); with --follow, the update period (default 10s, 2s with --serve)',
    )
    .option('--jobs <n>', 'threads for large runs (default: number of cores)')
    .option('-q, --quiet', 'no progress line on a terminal, no note of the format chosen')
    .option('--state-out <file>', 'also write the exact state (mergeable with logs merge) as JSON')
    .option(
      '--metrics-listen <host:port>',
      'with --follow: serve Prometheus metrics on http://HOST:PORT/metrics while following',
    )
    .option(
      '--prom-textfile <file>',
      "also write the metrics atomically to FILE for node_exporter's textfile collector (with --follow: every update)",
    )
    .option('--label <name=value>', 'a label on every metric, e.g. host=web1 (repeatable)', collect)
    .option(
      '--host <ssh>',
      "read the logs on that host over ssh, with the proxyops there (repeatable; FILEs are each host's; none: its running nginx's access logs); one report over all",
      collect,
    )
    .option(
      '--pid-file <file>',
      'with --host and no FILE: the nginx whose access logs to read, by its pid file there (when several run)',
    )
    .action((inputs: string[], options: Record<string, unknown> & { host?: string[]; pidFile?: string }) =>
      runAction(async () => {
        const { host, pidFile, ...rest } = options;
        if (host) {
          const { runLogsStatsOnHosts } = await import('../../proxy-config/logs/logs-stats-on-hosts.js');
          return runLogsStatsOnHosts(host, inputs, { ...rest, pidFile }, processIo());
        }
        if (pidFile !== undefined)
          throw new ProxyopsError(
            'BAD_OPTION',
            '--pid-file goes with --host and no FILE (here, name the log files)',
          );
        const { runLogsStatsCommand } = await import('../../proxy-config/logs/logs-stats-command.js');
        return runLogsStatsCommand(inputs, rest, processIo());
      }),
    );
}

/** `proxyops logs merge`: what one `logs stats` over all the inputs of some state files would print. */
function registerLogsMerge(logs: Command): void {
  logs
    .command('merge')
    .description(
      'Merge the state files of logs stats --state-out: prints what one run over all their inputs would print',
    )
    .argument('<states...>', 'state files written by logs stats --state-out, of one log format')
    .option('--json', 'one JSON document (schema in docs/access-logs.md)')
    .option('--ndjson', 'the timeline, one JSON point per line')
    .option('--prom', 'the Prometheus metrics (as --prom-textfile writes them) on stdout')
    .option('--html <file>', 'also write a self-contained HTML report with charts')
    .option(
      '--fail-if <expr>',
      "exit 1 when this holds, e.g. '5xx_ratio>0.01' or '499>100' (repeatable)",
      collect,
    )
    .option('--state-out <file>', 'also write the merged state')
    .option(
      '--prom-textfile <file>',
      "also write the metrics atomically for node_exporter's textfile collector",
    )
    .option('--label <name=value>', 'a label on every metric, e.g. host=web1 (repeatable)', collect)
    .action((states: string[], options: Record<string, unknown>) =>
      runAction(async () => {
        const { runLogsMergeCommand } = await import('../../proxy-config/logs/logs-merge-command.js');
        return runLogsMergeCommand(states, options, processIo());
      }),
    );
}

/** The subcommands of `proxyops logs`; adding one is adding its register function here. */
const LOGS_SUBCOMMANDS: Array<(logs: Command) => void> = [
  registerLogsStats,
  registerLogsMerge,
  registerLogsRotate,
];

/** `proxyops logs ...`: the access-log command group. */
export function registerLogs(program: Command, extent: Extent = 'whole'): void {
  const logs = program.command('logs').description('Read nginx access logs: statistics, live view, rotation');
  if (extent === 'whole') for (const register of LOGS_SUBCOMMANDS) register(logs);
}
