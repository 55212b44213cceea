import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotDir } from '../proxy-config/helpers/snapshot-dir.js';
import { yamlAliasBomb } from '../support/yaml-alias-bomb.js';
import { invokedName } from '../../cli/invoked-name.js';

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
    // nginx -t opens the spec's log files under run/ as the user nginx workers run as.
    await chmod(dir, 0o755);
    await mkdir(join(dir, 'run'), { mode: 0o755 });
    fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** A spec nginx -t accepts unprivileged: everything it writes lives under the test directory. */
  const spec = (extra: Record<string, unknown> = {}) => ({
    version: 1,
    paths: { pidFile: join(dir, 'run', 'nginx.pid'), tempDir: join(dir, 'run') },
    accessLog: { path: join(dir, 'run', 'access.log') },
    errorLog: { path: join(dir, 'run', 'error.log') },
    upstreams: { api: { servers: [{ host: '127.0.0.1', port: 9 }] } },
    servers: [{ names: ['a.test'], listen: [{ port: 18089 }], routes: [{ path: '/', upstream: 'api' }] }],
    ...extra,
  });
  let counter = 0;
  const specFile = async (data: unknown) => {
    const path = join(dir, `spec-${++counter}.json`);
    await writeFile(path, typeof data === 'string' ? data : JSON.stringify(data));
    return path;
  };
  /** A target that one apply has filled: versions/v0001, current -> versions/v0001. */
  const appliedTarget = async () => {
    const target = join(dir, `target-${++counter}`);
    const applied = await proxyops('config', 'apply', '--spec', await specFile(spec()), '--target', target);
    expect(applied.code).toBe(0);
    return target;
  };

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

  it('says what the error code of a missing file means, without repeating the path', async () => {
    const missing = join(dir, 'missing');
    const cases: Array<[string[], string]> = [
      [['config', 'render', '--spec', missing], `cannot read spec ${missing}`],
      [['config', 'lint', missing], `cannot read ${missing}`],
      [['cert', 'check', missing], `cannot read certificate ${missing}`],
      [['diagnose', '502', '--error-log', missing], `cannot read --error-log ${missing}`],
    ];
    for (const [args, message] of cases) {
      const result = await proxyops(...args);
      expect({ args, code: result.code, stderr: result.stderr.trim() }).toEqual({
        args,
        code: 2,
        stderr: `proxyops: ${message}: ENOENT: no such file or directory`,
      });
    }
    // A log says it in words, with the names logrotate gives (test/cli/logs-rotated-week.test.ts).
    const result = await proxyops('logs', 'stats', missing);
    expect({ code: result.code, stderr: result.stderr.trim() }).toEqual({
      code: 2,
      stderr: `proxyops: cannot read ${missing}: no such file; check the path (rotated logs are ${missing}.1, ${missing}.2.gz …)`,
    });
  });

  it('logs stats names what a path that is not a log is', async () => {
    const result = await proxyops('logs', 'stats', dir);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(`proxyops: cannot read ${dir}: not a regular file (a directory)`);
  });

  it('a YAML alias bomb as --spec is SPEC_UNREADABLE for every command that reads a spec', async () => {
    const bomb = join(dir, 'bomb.yaml');
    await writeFile(bomb, yamlAliasBomb());
    for (const args of [
      ['config', 'render', '--spec', bomb],
      ['config', 'validate', '--spec', bomb],
      ['config', 'apply', '--spec', bomb, '--target', join(dir, 'bomb-target')],
      ['cert', 'check', '--spec', bomb],
      ['deploy', 'plan', '--spec', bomb, '--target', join(dir, 'bomb-target')],
      ['diagnose', '502', '--spec', bomb],
    ]) {
      const result = await proxyops(...args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr.trim()).toBe(
        `proxyops: ${bomb}: not valid YAML/JSON: Excessive alias count indicates a resource exhaustion attack`,
      );
    }
  });

  it('an nginx config nested thousands deep is NGINX_CONFIG_INVALID at file:line for every reader', async () => {
    const deep = join(dir, 'deep.conf');
    await writeFile(deep, 'http {\n'.repeat(3000) + '}\n'.repeat(3000));
    const log = join(dir, 'empty.log');
    await writeFile(log, '');
    for (const args of [
      ['config', 'lint', deep],
      ['diagnose', '502', '--config', deep],
      ['logs', 'stats', '--nginx-conf', deep, '--format-name', 'main', log],
    ]) {
      const result = await proxyops(...args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr.trim()).toBe(
        `proxyops: ${deep}:101: "http" block nested more than 100 levels deep`,
      );
    }
  });

  it('a value nginx -t would refuse is a schema error naming the field (exit 2), not a failed validate (1)', async () => {
    const data = spec();
    (data.upstreams.api as Record<string, unknown>).keepaliveRequests = 1e20;
    const result = await proxyops('config', 'validate', '--spec', await specFile(data));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('upstreams.api.keepaliveRequests: must be <= 1000000000 [maximum]');
    const zero = await proxyops(
      'config',
      'render',
      '--spec',
      await specFile(spec({ timeouts: { proxyRead: 0.0004 } })),
    );
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('timeouts.proxyRead: must be >= 0.001 [minimum]');
    const nul = spec();
    nul.servers[0]!.routes[0]!.path = '/a\u0000';
    const withNul = await proxyops('config', 'render', '--spec', await specFile(nul));
    expect(withNul.code).toBe(2);
    expect(withNul.stderr).toContain('servers[0].routes[0].path: must match pattern');
  });

  it('a file where a directory belongs, or the reverse, is one line naming the path and exit 2', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const ok = await specFile(spec());
    const versionsFile = join(dir, 'versions-file');
    await mkdir(versionsFile);
    await writeFile(join(versionsFile, 'versions'), '');
    const outWithDir = join(dir, 'out-with-dir');
    await mkdir(join(outWithDir, 'nginx.conf'), { recursive: true });
    const empty = join(dir, 'empty-target');
    await mkdir(empty);
    const cases: Array<[string[], string]> = [
      [
        ['config', 'apply', '--spec', ok, '--target', file],
        `config target ${file} is a regular file, not a directory`,
      ],
      [['config', 'rollback', '--target', file], `config target ${file} is a regular file, not a directory`],
      [
        ['config', 'apply', '--spec', ok, '--target', versionsFile],
        `${versionsFile}/versions is a regular file, not the directory of config versions`,
      ],
      [
        ['config', 'rollback', '--target', versionsFile],
        `${versionsFile}/versions is a regular file, not the directory of config versions`,
      ],
      [
        ['config', 'rollback', '--target', empty],
        `${empty} holds no config versions (nothing was applied there with \`${invokedName(process.env, ['node', CLI], ROOT)} config apply\`): nothing to roll back`,
      ],
      [
        ['config', 'render', '--spec', ok, '--out', file],
        `cannot write the rendered config to ${file}: ${file} is a regular file, not a directory`,
      ],
      [
        ['config', 'render', '--spec', ok, '--out', join(file, 'sub')],
        `cannot write the rendered config to ${join(file, 'sub')}: ${file} is a regular file, not a directory`,
      ],
      [
        ['config', 'render', '--spec', ok, '--out', outWithDir],
        `cannot write the rendered config to ${outWithDir}: ${outWithDir}/nginx.conf is a directory`,
      ],
      [
        ['deploy', 'plan', '--spec', ok, '--target', file],
        `config target ${file} is a regular file, not a directory`,
      ],
      [
        ['deploy', 'plan', '--dir', file],
        `cannot use ${file}/config: ${file} is a regular file, not a directory`,
      ],
      [
        ['config', 'apply', '--spec', ok, '--target', join(file, 'sub')],
        `cannot use ${file}/sub: ${file} is a regular file, not a directory`,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await proxyops(...args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({
        args,
        code: 2,
        stderr: `proxyops: ${message}`,
      });
    }
  });

  it("render --out on a full disk says what to do (exit 2); one that fails for a reason not the caller's (/proc) exits 1, at once", async () => {
    const out = join(dir, 'out-full');
    await mkdir(out);
    // Writing to /dev/full fails with ENOSPC, as a full disk does.
    await symlink('/dev/full', join(out, 'nginx.conf'));
    const result = await proxyops('config', 'render', '--spec', await specFile(spec()), '--out', out);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `proxyops: cannot write the rendered config to ${out}: ${out}/nginx.conf: ENOSPC: no space left on device; free some space on that file system and run it again`,
    });
    // /proc takes no new files (ENOENT): not one of the caller's known mistakes, so a failure (exit 1).
    const proc = await proxyops('config', 'render', '--spec', await specFile(spec()), '--out', '/proc/self');
    expect({ code: proc.code, stderr: proc.stderr }).toEqual({
      code: 1,
      stderr:
        'proxyops: cannot write the rendered config to /proc/self: /proc/self/nginx.conf: ENOENT: no such file or directory',
    });
    const deeper = await proxyops(
      'config',
      'render',
      '--spec',
      await specFile(spec()),
      '--out',
      '/proc/self/x/y',
    );
    expect({ code: deeper.code, stderr: deeper.stderr }).toEqual({
      code: 1,
      stderr:
        'proxyops: cannot write the rendered config to /proc/self/x/y: /proc/self/x: ENOENT: no such file or directory',
    });
  });

  it('a corrupt instances.json is bad input (exit 2), not a failed operation', async () => {
    const target = join(dir, 'corrupt-state');
    await mkdir(target);
    await writeFile(join(target, 'instances.json'), '{"upstreams": ');
    const data = spec();
    (data.upstreams.api as Record<string, unknown>).deploy = { command: ['node', 'app.js'] };
    const result = await proxyops('deploy', 'plan', '--spec', await specFile(data), '--target', target);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^proxyops: .*instances\.json is not valid JSON/);
  });

  it('apply refuses a target whose current or previous is not its own symlink, changing nothing', async () => {
    for (const [name, make] of [
      ['current', (path: string) => writeFile(path, 'mine')],
      ['previous', (path: string) => symlink('/etc', path)],
    ] as const) {
      const target = await appliedTarget();
      await rm(join(target, name), { force: true });
      await make(join(target, name));
      const before = await snapshotDir(target);
      const result = await proxyops('config', 'apply', '--spec', await specFile(spec()), '--target', target);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          `^proxyops: ${join(target, name)} is (a regular file|a symlink to /etc), not a link to versions/vNNNN`,
        ),
      );
      expect(await snapshotDir(target)).toEqual(before);
    }
  });

  it('apply removes its staging directory when the running version cannot be read', async () => {
    const corrupt = await appliedTarget();
    await writeFile(join(corrupt, 'versions', 'v0001', 'proxyops-version.json'), '{');
    const dangling = await appliedTarget();
    await rm(join(dangling, 'versions', 'v0001'), { recursive: true });
    for (const target of [corrupt, dangling]) {
      const before = await snapshotDir(target);
      const result = await proxyops('config', 'apply', '--spec', await specFile(spec()), '--target', target);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/cannot read .*v0001\/proxyops-version\.json/);
      expect(await readdir(join(target, 'versions'))).toEqual(dangling === target ? [] : ['v0001']);
      expect(await snapshotDir(target)).toEqual(before);
    }
  });

  it('a snippet in a block that refuses it names the rendered line, not a directory that is gone', async () => {
    const data = spec();
    (data.servers[0] as Record<string, unknown>).snippets = ['worker_processes 2'];
    const bad = await specFile(data);
    const target = await appliedTarget();
    const before = await snapshotDir(target);
    for (const command of [
      ['config', 'validate', '--spec', bad],
      ['config', 'apply', '--spec', bad, '--target', target],
    ]) {
      const result = await proxyops(...command);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^proxyops: the rendered config is invalid: nginx\.conf:(\d+): "worker_processes" directive is not allowed here\n {2}\1 \| worker_processes 2;$/,
      );
    }
    expect(await snapshotDir(target)).toEqual(before);
  });

  it('render --out keeps the mode of a directory that exists and makes new ones 0755', async () => {
    const shared = join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o1777);
    const ok = await specFile(spec());
    expect((await proxyops('config', 'render', '--spec', ok, '--out', shared)).code).toBe(0);
    expect((await stat(shared)).mode & 0o7777).toBe(0o1777);
    const fresh = join(dir, 'fresh', 'out');
    expect((await proxyops('config', 'render', '--spec', ok, '--out', fresh)).code).toBe(0);
    expect((await stat(fresh)).mode & 0o7777).toBe(0o755);
    expect((await stat(join(dir, 'fresh'))).mode & 0o7777).toBe(0o755);
    expect(await readFile(join(fresh, 'nginx.conf'), 'utf8')).toContain('upstream api');
  });
});
