#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { commandsFor } from './commands/index.js';
import { EXIT } from './exit-codes.js';
import { addHelpExamples } from './help-examples.js';
import { PROXYOPS_VERSION } from '../proxy-config/core/version.js';

const program = new Command('proxyops')
  .description(
    'Render, lint and apply nginx config, deploy without dropped requests, read access logs, diagnose incidents.',
  )
  .version(PROXYOPS_VERSION)
  .option('--debug', 'print the stack trace of an error (also DEBUG=proxyops)')
  .showHelpAfterError('(run with --help for usage)')
  // Usage errors read like every other error of this CLI: `proxyops: ...`.
  .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'proxyops: ')) })
  .exitOverride();

for (const { register } of commandsFor(process.argv.slice(2))) register(program);
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
