#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { COMMANDS, commandsFor } from './commands/index.js';
import { EXIT } from './exit-codes.js';
import { addHelpExamples } from './help-examples.js';
import { PROXYOPS_VERSION } from '../proxy-config/core/version.js';

const rows = commandsFor(process.argv.slice(2));
const program = new Command('proxyops')
  .description(
    'Render, lint and apply nginx config, deploy without dropped requests, read access logs, diagnose incidents.',
  )
  .option('--debug', 'print the stack trace of an error (also DEBUG=proxyops)')
  .showHelpAfterError('(run with --help for usage)')
  // Usage errors read like every other error of this CLI: `proxyops: ...`.
  .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'proxyops: ')) })
  .exitOverride();

// commander lets a program option win over a command's option of the same name: a run of a command
// with its own `--version <value>` (deploy) gets no program `-V, --version`.
if (rows === COMMANDS || !rows.some((row) => row.ownsVersionOption)) program.version(PROXYOPS_VERSION);
for (const { register } of rows) register(program);
addHelpExamples(program);

// `proxyops ... | head` closes our stdout early: stop quietly, as Unix filters do, instead of a stack trace.
// Commands that must finish their work whatever happens to the output (up) replace this listener.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? EXIT.ok);
});

// No top-level await: the build turns this file into CommonJS (scripts/bundle-cli.mjs).
program.parseAsync(process.argv).catch((error: unknown) => {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
});
