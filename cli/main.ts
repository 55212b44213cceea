#!/usr/bin/env node
import { CommanderError } from 'commander';
import { commandsFor } from './commands/index.js';
import { EXIT } from './exit-codes.js';
import { createProgram } from './program.js';
import { plainStdoutOutput, stdoutIsPlain } from './standard-output.js';

const program = createProgram(commandsFor(process.argv.slice(2)), stdoutIsPlain() ? plainStdoutOutput() : {});

// No top-level await: the build turns this file into CommonJS (scripts/bundle-cli.mjs).
program.parseAsync(process.argv).catch((error: unknown) => {
  if (!(error instanceof CommanderError)) throw error;
  process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
});
