import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

// After a deploy, TARGET/instances.json says which instances serve; the spec file still lists the
// ones it started from. `config apply` must not silently route back to those.
describe('config apply against instances recorded by a deploy', () => {
  let dir: string;
  let specPath: string;
  const target = () => join(dir, 'target');
  const recorded = (ports: number[], extra: object[] = []) => ({
    version: 1,
    upstreams: {
      api: [...ports.map((port) => ({ host: '127.0.0.1', port, inUpstream: true })), ...extra],
    },
  });
  const currentConfig = () => readFile(join(target(), 'current', 'nginx.conf'), 'utf8');
  const state = async () => JSON.parse(await readFile(join(target(), 'instances.json'), 'utf8'));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-servers-from-'));
    await chmod(dir, 0o755);
    await mkdir(join(dir, 'run'), { mode: 0o755 });
    specPath = join(dir, 'spec.json');
    await writeFile(
      specPath,
      JSON.stringify({
        version: 1,
        paths: { pidFile: join(dir, 'run', 'nginx.pid'), tempDir: join(dir, 'run') },
        accessLog: { path: join(dir, 'run', 'access.log') },
        errorLog: { path: join(dir, 'run', 'error.log') },
        upstreams: {
          api: {
            servers: [
              { host: '127.0.0.1', port: 3001, maxFails: 3 },
              { host: '127.0.0.1', port: 3002, maxFails: 3 },
            ],
          },
        },
        servers: [{ names: ['a.test'], listen: [{ port: 18080 }], routes: [{ path: '/', upstream: 'api' }] }],
      }),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const apply = (...extra: string[]) =>
    runCli(['config', 'apply', '--spec', specPath, '--target', target(), ...extra]);

  it('refuses by default, exit 2, naming both lists, and installs nothing', async () => {
    await mkdir(target(), { recursive: true });
    await writeFile(join(target(), 'instances.json'), JSON.stringify(recorded([4001, 4002])));
    const result = await apply();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'upstream api: the spec lists 127.0.0.1:3001, 127.0.0.1:3002; serving now: 127.0.0.1:4001, 127.0.0.1:4002',
    );
    expect(result.stderr).toContain('--servers-from state');
    await expect(currentConfig()).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('--servers-from state renders the serving instances with the spec’s per-server settings', async () => {
    const result = await apply('--servers-from', 'state');
    expect(result.code, result.stderr).toBe(0);
    const config = await currentConfig();
    expect(config).toMatch(/server 127\.0\.0\.1:4001 max_fails=3/);
    expect(config).toMatch(/server 127\.0\.0\.1:4002 max_fails=3/);
    expect(config).not.toContain(':3001');
    expect(await state()).toEqual(recorded([4001, 4002]));
  });

  it('--servers-from spec puts the spec’s servers in and records them; a started instance stays recorded, out', async () => {
    await writeFile(
      join(target(), 'instances.json'),
      JSON.stringify(recorded([3001], [{ host: '127.0.0.1', port: 4002, pid: 999_999, inUpstream: true }])),
    );
    const result = await apply('--servers-from', 'spec');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      '127.0.0.1:4002 (pid 999999) left upstream api but still runs; stop it with kill -QUIT 999999',
    );
    const config = await currentConfig();
    expect(config).toContain('127.0.0.1:3001');
    expect(config).toContain('127.0.0.1:3002');
    expect(config).not.toContain(':4002');
    expect((await state()).upstreams.api).toEqual([
      { host: '127.0.0.1', port: 3001, inUpstream: true },
      { host: '127.0.0.1', port: 3002, inUpstream: true },
      { host: '127.0.0.1', port: 4002, pid: 999_999, inUpstream: false },
    ]);
    // Now they agree: the default applies without a word about servers.
    const again = await apply();
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('serving now');
  });

  it('rollback refuses a previous version that routes to instances no longer serving; --force rolls back', async () => {
    // The last test left both versions on 3001/3002, recorded as serving. Move the record to 4001/4002,
    // as a deploy would, and apply from it: now the previous version routes to the stopped instances.
    await writeFile(join(target(), 'instances.json'), JSON.stringify(recorded([4001, 4002])));
    const applied = await apply('--servers-from', 'state');
    expect(applied.code, applied.stderr).toBe(0);
    const before = await currentConfig();

    const refused = await runCli(['config', 'rollback', '--target', target()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      'upstream api: it routes to 127.0.0.1:3001, 127.0.0.1:3002; serving now: 127.0.0.1:4001, 127.0.0.1:4002',
    );
    expect(refused.stderr).toContain('--force');
    expect(await currentConfig()).toBe(before);

    const forced = await runCli(['config', 'rollback', '--target', target(), '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('rolling back anyway (--force)');
    expect(await currentConfig()).toContain('127.0.0.1:3001');
  });

  it('rollback to a version whose servers all still serve needs no --force', async () => {
    // current routes to 3001/3002, previous to 4001/4002: record only the previous one's as serving.
    await writeFile(join(target(), 'instances.json'), JSON.stringify(recorded([4001, 4002, 4003])));
    const result = await runCli(['config', 'rollback', '--target', target()]);
    expect(result.code, result.stderr).toBe(0);
    expect(await currentConfig()).toContain('127.0.0.1:4001');
  });

  it('apply and rollback refuse while a deploy holds the target', async () => {
    await writeFile(join(target(), 'deploy.lock'), String(process.pid));
    try {
      const result = await apply();
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`another deploy (pid ${process.pid}) is running`);
      const rollback = await runCli(['config', 'rollback', '--target', target()]);
      expect(rollback.code).toBe(1);
      expect(rollback.stderr).toContain(`another deploy (pid ${process.pid}) is running`);
    } finally {
      await rm(join(target(), 'deploy.lock'));
    }
  });
});
