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

/** A register function and the top-level commands it defines (or adds to). */
export interface CommandRow {
  names: readonly string[];
  register: (program: Command) => void;
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

/**
 * The rows a run needs: those of the command its first word names, else all of them (the
 * program's own --help lists every command, and an unknown word gets commander's suggestion).
 * Declaring the options of commands a run does not use was a tenth of a short run's cost (bench:cli).
 * The program's own options (--debug, --version, --help) take no value, so the first word not
 * starting with "-" is the command.
 */
export function commandsFor(args: readonly string[]): readonly CommandRow[] {
  const word = args.find((arg) => !arg.startsWith('-'));
  const named = COMMANDS.filter((row) => word !== undefined && row.names.includes(word));
  return named.length > 0 ? named : COMMANDS;
}
