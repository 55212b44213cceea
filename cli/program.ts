import { Command, type OutputConfiguration } from 'commander';
import { COMMANDS, type Declaration } from './commands/index.js';
import { addHelpExamples } from './help-examples.js';
import { watchedStdout } from './standard-output.js';
import { PROXYOPS_VERSION } from '../proxy-config/core/version.js';

/**
 * The program with the commands a run declares (commandsFor). `output` is set before any command is
 * declared: commander copies it into each command as it is made.
 */
export function createProgram({ rows, extent }: Declaration, output: OutputConfiguration = {}): Command {
  const program = new Command('proxyops')
    .description(
      'Render, lint and apply nginx config, deploy without dropped requests, read access logs, diagnose incidents.',
    )
    .option('--debug', 'print the stack trace of an error (also DEBUG=proxyops)')
    .showHelpAfterError('(run with --help for usage)')
    // Usage errors read like every other error of this CLI: `proxyops: ...`.
    .configureOutput({
      ...output,
      outputError: (text, write) => write(text.replace(/^error: /, 'proxyops: ')),
    })
    .exitOverride()
    // A command's work makes process.stdout; help and the version alone need not (standard-output.ts).
    .hook('preAction', () => void watchedStdout());

  // commander lets a program option win over a command's option of the same name: a run of a command
  // with its own `--version <value>` (deploy) gets no program `-V, --version`.
  if (rows === COMMANDS || !rows.some((row) => row.ownsVersionOption)) program.version(PROXYOPS_VERSION);
  for (const { register } of rows) register(program, extent);
  addHelpExamples(program);
  return program;
}
