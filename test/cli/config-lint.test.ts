import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_DIR } from '../proxy-config/lint/fixtures.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'dist/cli/main.js');

/** Runs the built CLI the way a user does (`npm test` builds dist/ first). */
function proxyops(...args: string[]) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: undefined,
    FORCE_COLOR: undefined,
  };
  return execa('node', [CLI, ...args], { reject: false, env, extendEnv: false, cwd: ROOT, timeout: 20_000 });
}

describe('proxyops config lint', () => {
  let dir: string;
  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    dir = await mkdtemp(join(tmpdir(), 'proxyops-cli-lint-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('exits 1 on an error-severity finding, printing file:line, severity, rule, what, why and fix', async () => {
    // Issue 26 made forwarded-proto-missing, this test's first fixture, a warning: alias-traversal is an error.
    const result = await proxyops('config', 'lint', join(FIXTURE_DIR, 'alias-traversal.fail.conf'));
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toMatch(
      /^test\/fixtures\/lint\/alias-traversal\.fail\.conf:45 {2}error {4}alias-traversal {2}location \/static with alias \/srv\/static\/ serves \/static\.\.\/ from the parent directory$/m,
    );
    expect(result.stdout).toMatch(/^ {4}fix: end both with a slash:/m);
    expect(result.stdout).toMatch(/^ {4}runbook: runbooks\/proxy-security-report\.md#path-traversal$/m);
    expect(result.stdout).toMatch(/^1 error, 0 warnings in 1 file$/m);
    // Not a TTY: no colour codes.
    expect(result.stdout).not.toContain('\u001b[');
  });

  // util-linux `script` gives the CLI a pseudo-terminal, so stdout is a TTY.
  it.runIf(existsSync('/usr/bin/script'))('colours a TTY, unless NO_COLOR is set', async () => {
    const command = `node ${CLI} config lint ${join(FIXTURE_DIR, 'alias-traversal.fail.conf')}`;
    const onTty = (noColor: string | undefined) =>
      execa('script', ['-qec', command, '/dev/null'], {
        reject: false,
        env: { ...process.env, NO_COLOR: noColor, FORCE_COLOR: undefined },
        extendEnv: false,
        timeout: 20_000,
      });
    const coloured = await onTty(undefined);
    expect(coloured.stdout).toContain('\u001b[31m');
    expect(coloured.stdout).toContain('alias-traversal');
    const plain = await onTty('1');
    expect(plain.stdout).toContain('alias-traversal');
    expect(plain.stdout).not.toContain('\u001b[');
  });

  it('exits 0 when only warnings fire', async () => {
    const result = await proxyops('config', 'lint', join(FIXTURE_DIR, 'server-tokens-on.fail.conf'));
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^0 errors, 2 warnings in 1 file$/m);
  });

  it('exits 1 on warnings with --fail-on warning, and on notes only with --fail-on note', async () => {
    const warnings = join(FIXTURE_DIR, 'server-tokens-on.fail.conf');
    expect((await proxyops('config', 'lint', '--fail-on', 'warning', warnings)).exitCode).toBe(1);
    const notes = join(FIXTURE_DIR, 'request-id-missing.fail.conf');
    expect((await proxyops('config', 'lint', notes)).exitCode).toBe(0);
    expect((await proxyops('config', 'lint', '--fail-on', 'warning', notes)).exitCode).toBe(0);
    const noted = await proxyops('config', 'lint', '--fail-on', 'note', notes);
    expect(noted.exitCode).toBe(1);
    expect(noted.stdout).toMatch(/^0 errors, 0 warnings, \d+ notes? in 1 file$/m);
  });

  it('exits 0 on a clean config', async () => {
    const result = await proxyops('config', 'lint', join(FIXTURE_DIR, 'forwarded-proto-missing.pass.conf'));
    expect(result.exitCode).toBe(0);
    // Nothing but the nginx it was judged against (this machine's) and the totals.
    expect(result.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^judged against: nginx \d+\.\d+\.\d+/),
      '0 errors, 0 warnings in 1 file',
    ]);
  });

  it('prints the documented JSON shape with --json', async () => {
    const file = join(FIXTURE_DIR, 'proxy-pass-slash-mismatch.fail.conf');
    const result = await proxyops('config', 'lint', '--json', file);
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(report).toMatchObject({
      ok: false,
      mainFile: file,
      files: [file],
      counts: { error: 2, warning: 0, ignored: 0 },
    });
    expect(report.findings).toEqual([
      {
        ruleId: 'proxy-pass-slash-mismatch',
        severity: 'error',
        title: expect.any(String),
        what: 'location /api with proxy_pass http://app/ forwards /api/users as //users',
        message: expect.any(String),
        fix: expect.any(String),
        runbook: 'runbooks/trailing-slash-404.md#compare-the-forwarded-path',
        file,
        line: 41,
      },
      expect.objectContaining({ ruleId: 'proxy-pass-slash-mismatch', line: 45 }),
    ]);
  });

  it('resolves includes relative to the main file and reports findings in the included file', async () => {
    await mkdir(join(dir, 'inc', 'conf.d'), { recursive: true });
    await writeFile(
      join(dir, 'inc', 'nginx.conf'),
      'worker_processes auto;\nworker_rlimit_nofile 1024;\nevents {}\nhttp {\n  server_tokens off;\n  include conf.d/*.conf;\n}\n',
    );
    await writeFile(
      join(dir, 'inc', 'conf.d', 'site.conf'),
      'server {\n  location /s {\n    alias /srv/s/;\n  }\n}\n',
    );
    const result = await proxyops('config', 'lint', '--json', join(dir, 'inc', 'nginx.conf'));
    const report = JSON.parse(result.stdout) as {
      findings: Array<{ ruleId: string; file: string; line: number }>;
    };
    expect(report.findings.map((f) => [f.ruleId, f.file, f.line])).toEqual([
      ['alias-traversal', join(dir, 'inc', 'conf.d', 'site.conf'), 3],
    ]);
    expect(result.exitCode).toBe(1);
  });

  it('exits 2 with file:line on stderr when the config does not parse', async () => {
    const file = join(dir, 'broken.conf');
    await writeFile(file, 'http {\n  server {\n    listen 80\n  }\n}\n');
    const result = await proxyops('config', 'lint', file);
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toBe(
      `proxyops: ${file}:3: missing ";" after "listen 80" (before "}" on line 4)`,
    );
  });

  it('exits 2 with file:line, not a stack overflow, on blocks nested thousands deep', async () => {
    const file = join(dir, 'deep.conf');
    await writeFile(file, 'location / {\n'.repeat(3000) + '}\n'.repeat(3000));
    const result = await proxyops('config', 'lint', file);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe(
      `proxyops: ${file}:101: "location" block nested more than 100 levels deep`,
    );
  });

  it('exits 2 when the file cannot be read, also with --json', async () => {
    const result = await proxyops('config', 'lint', '--json', join(dir, 'missing.conf'));
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /^proxyops: cannot read .*missing\.conf: ENOENT: no such file or directory$/m,
    );
  });
});
