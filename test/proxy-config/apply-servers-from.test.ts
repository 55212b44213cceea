import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

/** Writes a spec with one upstream `api` of `servers` in front of one site, runtime files under DIR/run. */
async function writeSpec(dir: string, name: string, servers: object[]): Promise<string> {
  const path = join(dir, `${name}.json`);
  await writeFile(
    path,
    JSON.stringify({
      version: 1,
      paths: { pidFile: join(dir, 'run', 'nginx.pid'), tempDir: join(dir, 'run') },
      accessLog: { path: join(dir, 'run', 'access.log') },
      errorLog: { path: join(dir, 'run', 'error.log') },
      upstreams: { api: { servers } },
      servers: [{ names: ['a.test'], listen: [{ port: 18080 }], routes: [{ path: '/', upstream: 'api' }] }],
    }),
  );
  return path;
}

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
    specPath = await writeSpec(dir, 'spec', [
      { host: '127.0.0.1', port: 3001, maxFails: 3 },
      { host: '127.0.0.1', port: 3002, maxFails: 3 },
    ]);
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

// A deploy leaves as previous version its last round's "add" step, which still routes to the old
// instance it then stopped. `config rollback` must not send traffic there unasked.
describe('config rollback against instances recorded by a deploy', () => {
  let dir: string;
  let target: string;
  const specFor = (name: string, ports: number[]) =>
    writeSpec(
      dir,
      name,
      ports.map((port) => ({ host: '127.0.0.1', port })),
    );
  const apply = async (ports: number[], ...extra: string[]) => {
    const result = await runCli([
      'config',
      'apply',
      '--spec',
      await specFor(`spec-${ports.join('-')}`, ports),
      '--target',
      target,
      ...extra,
    ]);
    expect(result.code, result.stderr).toBe(0);
  };
  const rollback = (...extra: string[]) => runCli(['config', 'rollback', '--target', target, ...extra]);
  const currentConfig = () => readFile(join(target, 'current', 'nginx.conf'), 'utf8');
  const record = async () => JSON.parse(await readFile(join(target, 'instances.json'), 'utf8'));
  const writeRecord = (api: object[]) =>
    writeFile(join(target, 'instances.json'), JSON.stringify({ version: 1, upstreams: { api } }));
  const serving = (port: number) => ({ host: '127.0.0.1', port, inUpstream: true });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-rollback-servers-'));
    await chmod(dir, 0o755);
    await mkdir(join(dir, 'run'), { mode: 0o755 });
    target = join(dir, 'target');
    await mkdir(target);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** The versions and record a one-instance deploy from 3001 to 4001 leaves: old, old + new, new. */
  const deployShaped = async () => {
    await writeRecord([serving(3001)]);
    await apply([3001]);
    await apply([3001, 4001], '--servers-from', 'spec');
    await apply([4001], '--servers-from', 'spec');
    expect((await record()).upstreams.api).toEqual([serving(4001)]);
  };

  it('refuses, exit 2, naming the version, the gone server and what serves; changes nothing', async () => {
    await deployShaped();
    const before = await currentConfig();
    const refused = await rollback();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /refusing to roll back (\S+) -> (\S+): \2 routes upstream api to 127\.0\.0\.1:3001 \(serving: 127\.0\.0\.1:4001\)/,
    );
    expect(refused.stderr).toContain('Nothing changed');
    expect(await currentConfig()).toBe(before);
    expect((await record()).upstreams.api).toEqual([serving(4001)]);
  });

  it('--force rolls back, says what it overrode, and records what nginx now routes to', async () => {
    await deployShaped();
    const forced = await rollback('--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/forced: \S+ routes upstream api to 127\.0\.0\.1:3001/);
    expect(await currentConfig()).toContain('127.0.0.1:3001');
    expect((await record()).upstreams.api).toEqual([serving(4001), serving(3001)]);
  });

  it('undoes a --servers-from spec apply while the instance it took out still runs', async () => {
    await writeRecord([{ ...serving(3001), pid: process.pid }]);
    await apply([3001]);
    await apply([4001], '--servers-from', 'spec');
    expect((await record()).upstreams.api).toContainEqual({
      ...serving(3001),
      pid: process.pid,
      inUpstream: false,
    });
    const result = await rollback();
    expect(result.code, result.stderr).toBe(0);
    expect(await currentConfig()).toContain('127.0.0.1:3001');
    expect((await record()).upstreams.api).toEqual([
      { ...serving(4001), inUpstream: false },
      { ...serving(3001), pid: process.pid },
    ]);
  });

  it('a version written before versions stored their servers is rolled back to unchecked', async () => {
    await deployShaped();
    const manifest = join(target, 'previous', 'proxyops-version.json');
    const { servers: _servers, ...older } = JSON.parse(await readFile(manifest, 'utf8'));
    await writeFile(manifest, JSON.stringify(older));
    const result = await rollback();
    expect(result.code, result.stderr).toBe(0);
    expect(await currentConfig()).toContain('127.0.0.1:3001');
  });

  it('an unreadable record stops a rollback (exit 2, bad input) unless --force, which says it did not check', async () => {
    await deployShaped();
    await writeFile(join(target, 'instances.json'), '{}');
    const refused = await rollback();
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('has no "upstreams" object');
    const forced = await rollback('--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('rolled back without checking the servers');
  });

  it('a pid file naming a process other than nginx is stale: apply installs without signalling it', async () => {
    await apply([3001]);
    const other = execa('sleep', ['30'], { reject: false });
    await writeFile(join(dir, 'run', 'nginx.pid'), `${other.pid}\n`);
    try {
      const result = await runCli([
        'config',
        'apply',
        '--spec',
        await specFor('next', [3002]),
        '--target',
        target,
      ]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('nginx is not running: installed only');
      expect(other.exitCode).toBeNull();
      expect(await currentConfig()).toContain('127.0.0.1:3002');
    } finally {
      other.kill('SIGKILL');
    }
  });
});
