import type { Command } from 'commander';
import { registerApi } from './api.js';
import { registerGraphqlManifest } from './graphql-manifest.js';
import { registerCert } from './cert.js';
import { registerConfig } from './config.js';
import { registerDeploy } from './deploy.js';
import { registerDeployCheck } from './deploy-check.js';
import { registerDiagnose } from './diagnose.js';
import { registerUp } from './up.js';
import { registerLogs } from './logs.js';
import { registerMaintenance } from './maintenance.js';
import { registerRemote } from './remote.js';

/**
 * How much of its commands a register function declares: the `whole` of them, or their `head` alone
 * (name, arguments, description and own options, no subcommands): all that the program's own help,
 * its version and the suggestion for an unknown command read.
 */
export type Extent = 'whole' | 'head';

/** A register function and the top-level commands it defines (or adds to). */
export interface CommandRow {
  names: readonly string[];
  register: (program: Command, extent?: Extent) => void;
  /** The command has a `--version <value>` of its own (`deploy --version V`), which the program's `--version` would take. */
  ownsVersionOption?: true;
}

/**
 * Every top-level command. Each module only declares its options; its work is imported lazily
 * inside the action so that `proxyops --help` loads nothing heavy. In order: graphql-manifest goes
 * under api, check under deploy.
 */
export const COMMANDS: readonly CommandRow[] = [
  { names: ['api'], register: registerApi },
  { names: ['api'], register: registerGraphqlManifest },
  { names: ['cert'], register: registerCert },
  { names: ['config'], register: registerConfig },
  { names: ['diagnose'], register: registerDiagnose },
  { names: ['logs'], register: registerLogs },
  { names: ['deploy'], register: registerDeploy, ownsVersionOption: true },
  { names: ['deploy'], register: registerDeployCheck },
  { names: ['up', 'down'], register: registerUp },
  { names: ['maintenance'], register: registerMaintenance },
  { names: ['remote'], register: registerRemote },
];

/** The rows a run declares, and how much of them. */
export interface Declaration {
  rows: readonly CommandRow[];
  extent: Extent;
}

/**
 * What a run needs: the rows of the command its first word names (`help logs`: the word after help),
 * whole; else the head of every row (the program's own --help lists every command, and an unknown
 * word gets commander's suggestion from their names). Declaring the options of commands a run does
 * not use was a tenth of a short run's cost (bench:cli). The program's own options (--debug,
 * --version, --help) take no value, so the first word not starting with "-" is the command.
 */
export function commandsFor(args: readonly string[]): Declaration {
  const words = args.filter((arg) => !arg.startsWith('-'));
  const word = words[0] === 'help' ? words[1] : words[0];
  const named = COMMANDS.filter((row) => word !== undefined && row.names.includes(word));
  return named.length > 0 ? { rows: named, extent: 'whole' } : { rows: COMMANDS, extent: 'head' };
}
