import { readFile } from 'node:fs/promises';
import { ProxyopsError } from '../core/errors.js';
import { describeErrno } from '../shell/describe-path.js';
import { assertSameFormat, fromStateDocument, type StateMeta } from '../core/logs/stats-state-document.js';
import { createStatsState, mergeStatsState, type StatsState } from '../core/logs/stats-state.js';
import { summarizeStats, type StatsSummary } from '../core/logs/summarize-stats.js';
import type { LogFormatSpec } from '../core/logs/log-format-presets.js';
import {
  checkOutputOptions,
  writeStatsOutputs,
  type CommandIo,
  type StatsOutputOptions,
} from './logs-stats-command.js';

/**
 * Runs `logs merge STATE...`: the states written by `logs stats --state-out`, added in the order given,
 * print what one `logs stats` over all their inputs (in that order) would have printed.
 */
export async function runLogsMergeCommand(
  files: string[],
  options: StatsOutputOptions,
  io: CommandIo,
): Promise<number> {
  if (files.length === 0)
    throw new ProxyopsError(
      'BAD_OPTION',
      'give the state files to merge (written by logs stats --state-out)',
    );
  const checked = await checkOutputOptions(options, files, io);
  const read: NamedState[] = [];
  for (const name of files) {
    const text = await readFile(name, 'utf8').catch((error: unknown) => {
      throw new ProxyopsError('STATE_UNREADABLE', `cannot read ${name}: ${describeStateErrno(error)}`, {
        cause: error,
      });
    });
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw new ProxyopsError(
        'STATE_INCOMPATIBLE',
        `${name}: not a proxyops state file (not JSON); write one with \`proxyops logs stats --state-out FILE\``,
      );
    }
    const one = { ...fromStateDocument(doc, name), name };
    // Checked as each file is read: a wrong file fails before the rest are read.
    if (read.length) assertSameFormat(read[0]!, one);
    read.push(one);
  }
  const { total, summary, format } = mergeStates(read);
  return writeStatsOutputs(total, summary, checked, options, io, format, false);
}

/** Why a state file cannot be read, in words, and what to do (the errno a person meets said without its code). */
function describeStateErrno(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return 'no such file; check the path (a state is written by proxyops logs stats --state-out FILE)';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied; run as the user who wrote it, or one who may read it (states are written mode 0600)';
    case 'EISDIR':
      return 'a directory; give the state files in it';
    default:
      return describeErrno(error);
  }
}

/** A state read back, and how errors name it (a file, a host). */
export interface NamedState {
  state: StatsState;
  meta: StateMeta;
  name: string;
}

/**
 * Adds states in the order given, as one run over all their inputs in that order: an empty total at
 * the finest interval, each state added. STATE_INCOMPATIBLE when their log formats differ.
 */
export function mergeStates(read: NamedState[]): {
  total: StatsState;
  summary: StatsSummary;
  format: LogFormatSpec;
} {
  const first = read[0]!;
  for (const one of read.slice(1)) assertSameFormat(first, one);
  const intervalMs = Math.min(...read.map((one) => one.state.intervalMs));
  const total = createStatsState(first.state.capabilities, intervalMs);
  for (const one of read) mergeStatsState(total, one.state);
  const summary = summarizeStats(total, {
    format: first.meta.format.name,
    formatSource: first.meta.formatSource,
    inputs: read.flatMap((one) => one.meta.inputs),
  });
  return { total, summary, format: first.meta.format };
}
