// What the benches over several hosts share: the test hosts (test/support/ssh-hosts.ts, compiled here
// with esbuild), a timed run of the built CLI with their ssh config, and the median of the rounds.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

/** Starts `names` as test hosts (real sshd in network namespaces) running this checkout's CLI. */
export async function startBenchHosts(scratch, names) {
  const support = fileURLToPath(new URL('../test/support/ssh-hosts.ts', import.meta.url));
  const compiled = join(scratch, 'ssh-hosts.mjs');
  const { code } = await transform(readFileSync(support, 'utf8'), { loader: 'ts', format: 'esm' });
  writeFileSync(compiled, code);
  const { startTestHosts } = await import(compiled);
  return startTestHosts(names, { trusted: true, cli });
}

/** Runs `proxyops ARGS` with `env`; resolves with its exit status, output and wall time in seconds. */
export function timedRun(args, env) {
  const started = process.hrtime.bigint();
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [cli, ...args],
      { env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        resolve({
          status: error ? (error.code ?? 1) : 0,
          stdout,
          stderr,
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
        }),
    ),
  );
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
