import { ProxyopsError } from '../core/errors.js';
import { describeDamage } from '../core/logs/log-damage.js';
import { fromStateDocument } from '../core/logs/stats-state-document.js';
import { timeOptionForHost } from '../core/logs/parse-time-option.js';
import type { Host, RunResult } from '../shell/host/host.js';
import { runProxyopsOn } from '../shell/host/remote-proxyops.js';
import { createSshHost } from '../shell/host/ssh-host.js';
import { mergeStates, type NamedState } from './logs-merge-command.js';
import {
  checkOutputOptions,
  DAMAGED_INPUT_EXIT,
  nothingToCount,
  writeStatsOutputs,
  type CommandIo,
  type LogsStatsCommandOptions,
} from './logs-stats-command.js';

/** The options that change what a host counts: passed on to the proxyops there as they were given. */
const PASSED_ON = [
  ['preset', '--preset'],
  ['logFormat', '--log-format'],
  ['escape', '--escape'],
  ['nginxConf', '--nginx-conf'],
  ['formatName', '--format-name'],
  ['status', '--status'],
  ['path', '--path'],
  ['interval', '--interval'],
  ['jobs', '--jobs'],
] as const;

/** The options of a run that follows, which reading hosts once cannot honour. */
const FOLLOW_ONLY = [
  ['follow', '--follow'],
  ['serve', '--serve'],
  ['metricsListen', '--metrics-listen'],
] as const;

/**
 * Runs `logs stats --host H…`: each host reads its own logs there (FILEs are that host's paths; none:
 * the access logs its running nginx writes), all hosts at once, and sends back only its exact state;
 * the states are added in the order of the hosts and reported here as one run over all those logs.
 * A host that fails is one line naming it, and there is no report: totals without it would pass for
 * the whole fleet's.
 */
export async function runLogsStatsOnHosts(
  destinations: string[],
  inputs: string[],
  options: LogsStatsCommandOptions & { pidFile?: string },
  io: CommandIo,
): Promise<number> {
  if (options.pidFile !== undefined && inputs.length > 0)
    throw new ProxyopsError(
      'BAD_OPTION',
      '--pid-file chooses the nginx whose logs to read: give it or FILEs',
    );
  for (const [key, flag] of FOLLOW_ONLY)
    if (options[key] !== undefined && options[key] !== false)
      throw new ProxyopsError(
        'BAD_OPTION',
        `${flag} follows this machine's logs; --host reads each host's once`,
      );
  if (inputs.includes('-'))
    throw new ProxyopsError(
      'BAD_OPTION',
      '--host reads files on the hosts; - (standard input) is this machine’s',
    );
  if (new Set(destinations).size !== destinations.length)
    throw new ProxyopsError('BAD_OPTION', '--host names a host twice: its logs would be counted twice');
  const checked = await checkOutputOptions(options, [], io);
  const args = remoteArgs(options, Date.now());
  const hosts = destinations.map((destination) => createSshHost(destination));
  try {
    const outcomes = await Promise.allSettled(
      hosts.map((host) => readHostState(host, inputs, args, options.pidFile)),
    );
    const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as Error] : []));
    if (failed.length > 0) {
      const code = (failed[0] as { code?: string }).code ?? 'FAILED';
      const read = destinations.length - failed.length;
      throw new ProxyopsError(
        code,
        `${failed.map((e) => e.message).join('\n')}; no report (${read} of ${destinations.length} hosts read: totals without the others would pass for all)`,
        { cause: failed[0], perLine: true },
      );
    }
    const states = outcomes.map((o) => (o as PromiseFulfilledResult<HostState>).value);
    for (const { notes } of states) for (const note of notes) io.stderr.write(`proxyops: ${note}\n`);
    const { total, summary, format } = mergeStates(states);
    // As on one machine: empty logs everywhere (just rotated?) are nothing to count, not a report of 0.
    if (summary.lines === 0 && total.damaged.length === 0 && options.stateOut !== '-')
      throw nothingToCount(summary.inputs);
    // A damaged .gz on a host is in its state: said (as HOST:PATH) and exit 2 as on one machine.
    return await writeStatsOutputs(total, summary, checked, options, io, format, true);
  } finally {
    await Promise.all(hosts.map((host) => host.close()));
  }
}

/** A host's state and its lines on stderr that the state does not already tell. */
interface HostState extends NamedState {
  notes: string[];
}

/** The argv after `proxyops logs stats FILE…` on every host: its state on stdout, durations made instants. */
function remoteArgs(options: LogsStatsCommandOptions, nowMs: number): string[] {
  const args = ['--state-out', '-', '--quiet'];
  for (const [key, flag] of PASSED_ON) {
    const value = options[key];
    if (value !== undefined) args.push(flag, String(value));
  }
  for (const [key, flag] of [
    ['since', '--since'],
    ['until', '--until'],
  ] as const) {
    const value = options[key];
    if (value !== undefined) args.push(flag, timeOptionForHost(value, flag, nowMs));
  }
  for (const upstream of options.upstream ?? []) args.push('--upstream', upstream);
  return args;
}

/** Reads one host's logs there and brings back its state, its inputs named `HOST:PATH`. */
async function readHostState(
  host: Host,
  inputs: string[],
  args: string[],
  pidFile: string | undefined,
): Promise<HostState> {
  const files = inputs.length > 0 ? inputs : await runningAccessLogs(host, pidFile);
  const result = await runProxyopsOn(host, ['logs', 'stats', ...files, ...args]);
  // 0: the state of every input; 2 with a state: one input was a damaged .gz, what could be read is
  // in it. Anything else (1: it failed there, 255: ssh lost) is no state to add, whatever stdout holds.
  if (result.exitCode !== 0 && result.exitCode !== DAMAGED_INPUT_EXIT) throw remoteFailure(host, result);
  const doc = parseJson(host, result);
  const { state, meta } = fromStateDocument(doc, host.name);
  // The lines there on its damaged inputs are said here from the state, once, with the inputs named
  // HOST:PATH like the others: relayed too, each would be said twice.
  const said = new Set(state.damaged.map(describeDamage));
  const named = (input: string) => `${host.name}:${input}`;
  state.malformedSamples = state.malformedSamples.map((s) => ({ ...s, input: named(s.input) }));
  state.damaged = state.damaged.map((d) => ({ ...d, input: named(d.input) }));
  return {
    state,
    meta: { ...meta, inputs: meta.inputs.map(named) },
    name: host.name,
    notes: stderrLines(result)
      .filter((line) => !said.has(line))
      .map((line) => `${host.name}: ${line}`),
  };
}

/** The access logs the nginx running on the host writes, as `diagnose` finds them there. */
async function runningAccessLogs(host: Host, pidFile: string | undefined): Promise<string[]> {
  const pid = pidFile === undefined ? [] : ['--pid-file', pidFile];
  const result = await runProxyopsOn(host, ['remote', 'access-logs', ...pid]);
  if (result.exitCode !== 0) throw remoteFailure(host, result);
  return (parseJson(host, result) as { accessLogs: string[] }).accessLogs;
}

/** The JSON a proxyops there printed; output that is not JSON is its failure, naming the host. */
function parseJson(host: Host, result: RunResult): unknown {
  try {
    return JSON.parse(result.stdout);
  } catch {
    throw remoteFailure(host, result);
  }
}

/** A proxyops run there that printed no state: its last line, naming the host; bad input stays bad input. */
function remoteFailure(host: Host, result: RunResult): ProxyopsError {
  const last =
    stderrLines(result).at(-1) ??
    (result.exitCode === 0 ? 'printed what is not JSON (exit 0)' : `exit ${result.exitCode}`);
  return new ProxyopsError(
    result.exitCode === DAMAGED_INPUT_EXIT ? 'REMOTE_BAD_INPUT' : 'REMOTE_FAILED',
    `${host.name}: ${last}`,
  );
}

function stderrLines(result: RunResult): string[] {
  return result.stderr
    .split('\n')
    .map((line) => line.replace(/^proxyops: /, '').trim())
    .filter(Boolean);
}
