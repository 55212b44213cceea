import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BUILT_CLI, runBuiltCli } from '../../support/built-cli.js';
import { buildDebianTree, hashTree, type DebianTree } from '../../support/debian-tree.js';
import { freePort } from '../../support/ports.js';

// Issue 36: a site enabled before its file was put in (sites-enabled/status -> ../sites-available/status,
// no such file). nginx's wildcard include matches the link and fails to open it; proxyops reads the
// tree the same way and refuses in one line naming the link, exit 2, nothing changed. Under
// /etc/nginx itself the reader once walked that link forever.

const DANGLING =
  /include cannot read \S*\/sites-enabled\/status: \S*\/sites-enabled\/status is a symlink to \.\.\/sites-available\/status, which does not exist \(ENOENT[^)]*\); nginx -t fails on it too \(open\(\) failed\): put the file it names in place, or remove the link \(rm \S*\/sites-enabled\/status\) until it is there$/;

let tree: DebianTree | undefined;
let scratch: string | undefined;

afterEach(async () => {
  await tree?.remove();
  tree = undefined;
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

// Each case runs the built CLI several times against a real nginx: minutes on a loaded CI machine.
describe('a dangling link in a wildcard-included directory', { timeout: 120_000 }, () => {
  it('config diff and apply refuse it in one line naming the link, exit 2; nothing changes', async () => {
    const blue = { host: '127.0.0.2', port: await freePort() };
    tree = await buildDebianTree({ servers: [blue], listenPort: await freePort(), workers: 1 });
    const state = join(tree.root, 'state');
    const spec = join(tree.root, 'spec.json');
    const upstreams = { app: { servers: [{ ...blue, alternate: `127.0.0.3:${blue.port}` }] } };
    await writeFile(
      spec,
      JSON.stringify({ version: 1, nginx: { conf: tree.conf, pidFile: tree.pidFile, state }, upstreams }),
    );
    await tree.start();
    expect((await runBuiltCli(['config', 'apply', '--spec', spec])).code).toBe(0);

    const link = join(tree.dir, 'sites-enabled', 'status');
    await symlink('../sites-available/status', link);
    const nginxT = await execa('nginx', ['-t', '-p', tree.prefix, '-c', tree.conf], { reject: false });
    expect(nginxT.stderr).toContain(`open() "${link}" failed (2: No such file or directory)`);

    const before = { tree: await hashTree(tree.dir), state: await hashTree(state), pids: await tree.pids() };
    for (const command of ['diff', 'apply']) {
      const result = await runBuiltCli(['config', command, '--spec', spec]);
      expect(result.code, command).toBe(2);
      expect(result.stderr.trimEnd().split('\n'), command).toHaveLength(1);
      expect(result.stderr.trimEnd(), command).toMatch(DANGLING);
      expect(result.stdout, command).toBe('');
    }
    expect({ tree: await hashTree(tree.dir), state: await hashTree(state), pids: await tree.pids() }).toEqual(
      before,
    );
  });

  it('under /etc/nginx itself the same refusal comes at once (a mount namespace binds a tree there)', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'proxyops-dangling-'));
    await chmod(scratch, 0o755);
    const dir = join(scratch, 'nginx');
    for (const sub of ['sites-available', 'sites-enabled']) await mkdir(join(dir, sub), { recursive: true });
    await writeFile(
      join(dir, 'nginx.conf'),
      `pid ${scratch}/nginx.pid;\nevents { }\nhttp {\n\tinclude /etc/nginx/sites-enabled/*;\n}\n`,
    );
    await writeFile(join(dir, 'sites-available', 'shop'), 'upstream app {\n\tserver 127.0.0.2:3001;\n}\n');
    await symlink('../sites-available/shop', join(dir, 'sites-enabled', 'shop'));
    await symlink('../sites-available/status', join(dir, 'sites-enabled', 'status'));
    const spec = join(scratch, 'spec.json');
    await writeFile(
      spec,
      JSON.stringify({
        version: 1,
        nginx: { conf: '/etc/nginx/nginx.conf', pidFile: `${scratch}/nginx.pid`, state: `${scratch}/state` },
        upstreams: { app: { servers: [{ host: '127.0.0.2', port: 3001, alternate: '127.0.0.3:3001' }] } },
      }),
    );
    const before = await hashTree(dir);
    const result = await execa(
      'unshare',
      [
        '-m',
        'sh',
        '-c',
        'mount --bind "$0" /etc/nginx && exec "$1" "$2" config diff --spec "$3"',
        dir,
        process.execPath,
        BUILT_CLI,
        spec,
      ],
      { reject: false, timeout: 20_000 },
    );
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(DANGLING);
    expect(result.stderr).toContain('rm /etc/nginx/sites-enabled/status');
    expect(await hashTree(dir)).toEqual(before);
  });
});
