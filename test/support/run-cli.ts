import { Command } from 'commander';
import { COMMANDS } from '../../cli/commands/index.js';

/** Runs `proxyops ARGS` in-process; returns the exit code and what went to stdout and stderr. */
export async function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const program = new Command('proxyops').exitOverride();
  for (const { register } of COMMANDS) register(program);
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) => ((stderr += chunk), true)) as typeof process.stderr.write;
  const previous = process.exitCode;
  process.exitCode = 0;
  try {
    await program.parseAsync(['node', 'proxyops', ...args]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } catch (error) {
    return { code: 2, stdout, stderr: `${stderr}${(error as Error).message}` };
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
    process.exitCode = previous;
  }
}
