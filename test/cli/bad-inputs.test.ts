import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'dist/cli/main.js');

/**
 * Runs the built CLI in its own process: an input that blocks must time out there, not hang the
 * test run. A timeout shows as exit code undefined.
 */
async function proxyops(...args: string[]) {
  const result = await execa('node', [CLI, ...args], { reject: false, cwd: ROOT, timeout: 15_000 });
  return {
    code: result.timedOut ? 'timed out' : result.exitCode,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

describe('bad inputs of the config commands: one line on stderr, exit 2', () => {
  let dir: string;
  let fifo: string;
  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    dir = await mkdtemp(join(tmpdir(), 'proxyops-bad-input-'));
    fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('refuses a FIFO wherever a file is read, instead of waiting for a writer forever', async () => {
    const log = join(dir, 'access.log');
    await writeFile(log, '');
    const cases: Array<[string[], RegExp]> = [
      [
        ['config', 'render', '--spec', fifo],
        /^proxyops: cannot read spec .*fifo: not a regular file \(a FIFO\)$/,
      ],
      [['config', 'lint', fifo], /^proxyops: cannot read .*fifo: not a regular file \(a FIFO\)$/],
      [['cert', 'check', fifo], /^proxyops: cannot read certificate .*fifo: not a regular file \(a FIFO\)$/],
      [
        ['diagnose', '502', '--access-log', fifo],
        /^proxyops: cannot read --access-log .*fifo: not a regular file/,
      ],
      [
        ['diagnose', '502', '--error-log', fifo],
        /^proxyops: cannot read --error-log .*fifo: not a regular file/,
      ],
      [['diagnose', '502', '--config', fifo], /^proxyops: cannot read .*fifo: not a regular file/],
      [
        ['logs', 'stats', '--nginx-conf', fifo, '--format-name', 'main', log],
        /^proxyops: cannot read .*fifo: not a regular file/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await proxyops(...args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr.trim()).toMatch(message);
    }
  });

  it('refuses a directory given as a file', async () => {
    const result = await proxyops('config', 'validate', '--spec', dir);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`proxyops: cannot read spec ${dir}: not a regular file (a directory)`);
  });
});
