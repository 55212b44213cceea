import { existsSync } from 'node:fs';
import {
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDebianTree, hashTree, linesOutsideBlock } from '../../support/debian-tree.js';
import { createSshHost } from '../../../proxy-config/shell/host/ssh-host.js';
import { openStepSession } from '../../../proxy-config/shell/host/step-session.js';
import { freePort } from '../../support/ports.js';
import { startTestHosts, type TestHosts } from '../../support/ssh-hosts.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI = join(ROOT, 'dist/cli/main.js');
const NAMES = ['web1', 'web2'] as const;

let hosts: TestHosts;
/** Where every host sees its own directory (the same path there, different files). */
let mp: string;
let port: number;
let appPort: number;
let statusPort: number;
let spec: string;
/** Every host's tree before the adoption (sha256 of each file). */
let unadopted: Array<Record<string, string>>;

/** Runs the built CLI the way a person would, with the test hosts' ssh config. */
async function proxyops(...args: string[]) {
  const result = await execa('node', [CLI, ...args], {
    reject: false,
    cwd: ROOT,
    timeout: 120_000,
    env: hosts.env,
  });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** The host's nginx tree as this test sees it. */
const treeOf = (name: string) => join(hosts.host(name).dir, 'etc', 'nginx');
const siteOf = (name: string) => join(treeOf(name), 'sites-available', 'app');

/** Every file of every host's tree (sha256, or a link's target), and each host's nginx master and workers. */
async function snapshot(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of NAMES) {
    out[`${name} files`] = await hashTree(treeOf(name));
    out[`${name} processes`] = pidsOf(name);
  }
  return out;
}

/** The master's pid and its workers', on the host (pids are this machine's: no pid namespace). */
function pidsOf(name: string): { master: number; workers: number[] } {
  const out = hosts.exec(name, ['sh', '-c', `p=$(cat ${mp}/run/nginx.pid); echo $p; pgrep -P $p`]);
  const [master, ...workers] = out.trim().split('\n').map(Number);
  return { master: master!, workers: workers.sort((a, b) => a - b) };
}

/** The user's own `nginx -s reload` on a host, waited out until its workers are new. */
async function reloadOn(name: string): Promise<void> {
  const before = pidsOf(name).workers;
  hosts.exec(name, ['sh', '-c', `kill -HUP $(cat ${mp}/run/nginx.pid)`]);
  await waitFor(() => !pidsOf(name).workers.some((pid) => before.includes(pid)));
}

/** Waits until `check` holds (a listener up), for at most 10 s. */
async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 100));
  if (!check()) throw new Error('timed out waiting');
}

/** The versions kept in the host's state dir, oldest first. */
async function versionsOn(name: string): Promise<string[]> {
  return (await readdir(join(hosts.host(name).dir, 'state', 'versions')).catch(() => [])).sort();
}

/** What the host's nginx answers on 127.0.0.1:PORT there. */
function fetchOn(name: string, at: number, path: string): string {
  return hosts.exec(name, ['curl', '-s', '--max-time', '5', `http://127.0.0.1:${at}${path}`]);
}

/**
 * Lays a hand-written Debian tree on a host: built by the shared builder here, then copied into the
 * host's own directory with every path rewritten to how the host sees it (its mount point), the
 * files' times set in the past so the master started after them loads what is on disk.
 */
async function layTree(name: string): Promise<void> {
  const built = await buildDebianTree({
    servers: [{ host: '127.0.0.1', port: appPort }],
    listenPort: port,
    workers: 1,
  });
  const past = new Date(Date.now() - 60_000);
  const walk = async (from: string): Promise<void> => {
    for (const entry of await readdir(from)) {
      const path = join(from, entry);
      const to = join(hosts.host(name).dir, relative(built.root, path));
      const stats = await lstat(path);
      if (stats.isSymbolicLink()) await symlink((await readlink(path)).replaceAll(built.root, mp), to);
      else if (stats.isDirectory()) {
        await mkdir(to, { recursive: true, mode: 0o755 });
        await walk(path);
      } else {
        await writeFile(to, (await readFile(path, 'utf8')).replaceAll(built.root, mp), { mode: 0o644 });
        await utimes(to, past, past);
      }
    }
  };
  await walk(built.root);
  await built.remove();
  hosts.exec(name, [
    'nginx',
    '-p',
    `${mp}/`,
    '-c',
    `${mp}/etc/nginx/nginx.conf`,
    '-e',
    `${mp}/log/nginx/error.log`,
  ]);
}

/** A spec adopting `upstream app` of the tree on both hosts, its state under each host's directory. */
async function writeSpec(): Promise<string> {
  const path = join(hosts.root, 'adopt-spec.json');
  await writeFile(
    path,
    JSON.stringify({
      version: 1,
      nginx: { conf: `${mp}/etc/nginx/nginx.conf`, pidFile: `${mp}/run/nginx.pid` },
      upstreams: {
        app: { servers: [{ host: '127.0.0.1', port: appPort, alternate: `127.0.0.1:${appPort + 1}` }] },
      },
      proxies: NAMES.map((ssh) => ({ ssh, target: `${mp}/state` })),
    }),
  );
  return path;
}

/** A local copy of web1's tree (paths as the hosts see them) with a new site answering on statusPort. */
async function treeToShip(accessLogDir: string): Promise<string> {
  const dir = join(hosts.root, `ship-${accessLogDir}`);
  await rm(dir, { recursive: true, force: true });
  await cp(treeOf('web1'), dir, { recursive: true, verbatimSymlinks: true });
  await writeFile(
    join(dir, 'conf.d', 'status.conf'),
    `server {\n\tlisten 127.0.0.1:${statusPort};\n\taccess_log ${mp}/log/${accessLogDir}/status.log;\n` +
      `\tlocation /status { return 200 "shipped tree\\n"; }\n}\n`,
  );
  return dir;
}

beforeAll(async () => {
  hosts = await startTestHosts([...NAMES], { trusted: true });
  mp = hosts.host('web1').mountPoint;
  port = await freePort();
  appPort = await freePort();
  statusPort = await freePort();
  for (const name of NAMES) {
    // The application each nginx host fronts, on its own loopback.
    hosts.spawnOn(name, [
      process.execPath,
      '-e',
      `require('http').createServer((q, s) => s.end('app on ${name}\\n')).listen(${appPort}, '127.0.0.1')`,
    ]);
    await layTree(name);
  }
  spec = await writeSpec();
}, 60_000);

afterAll(async () => {
  await hosts?.teardown();
});

describe('a hand-written tree on two nginx hosts, as one change', () => {
  it("adoption where one host's nginx -t fails: no host changed, no history anywhere", async () => {
    // The temp paths' parent is gone on web2 only: nginx -t there cannot create them.
    const lib = join(hosts.host('web2').dir, 'lib', 'nginx');
    await rm(lib, { recursive: true });
    const before = await snapshot();
    try {
      const result = await proxyops('config', 'apply', '--spec', spec);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/^proxyops: web2: .*nginx -t/m);
      expect(result.stderr).toContain('no host changed');
      expect(await snapshot()).toEqual(before);
      for (const name of NAMES)
        expect(existsSync(join(hosts.host(name).dir, 'state', 'versions'))).toBe(false);
    } finally {
      await mkdir(lib, { mode: 0o755 });
    }
  }, 120_000);

  it('adoption on both hosts: only the block changes, one version everywhere, a second apply is a no-op', async () => {
    const outside = await Promise.all(
      NAMES.map(async (name) => linesOutsideBlock(await readFile(siteOf(name), 'utf8'), 'app')),
    );
    const hashes = await Promise.all(NAMES.map((name) => hashTree(treeOf(name))));
    unadopted = hashes;
    const workers = NAMES.map((name) => pidsOf(name));

    const diff = await proxyops('config', 'diff', '--spec', spec);
    expect(diff.code, diff.stderr).toBe(1);
    for (const name of NAMES) expect(diff.stdout).toContain(`== ${name}`);
    expect(diff.stdout).toContain(`+\tserver 127.0.0.1:${appPort + 1}`);

    const result = await proxyops('config', 'apply', '--spec', spec);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('adopted: v0001 on 2 hosts: web1, web2');
    // A host with no version before says only the new one (no "empty ->").
    expect(result.stderr).toMatch(/^web1: v0001, reloaded/m);
    for (const [index, name] of NAMES.entries()) {
      const site = await readFile(siteOf(name), 'utf8');
      expect(site).toContain(
        `\tserver 127.0.0.1:${appPort + 1} max_fails=1 fail_timeout=1s;  # proxyops: alternate of 127.0.0.1:${appPort}\n`,
      );
      expect(linesOutsideBlock(site, 'app')).toEqual(outside[index]);
      const now = await hashTree(treeOf(name));
      delete now['sites-available/app'];
      const then = { ...hashes[index] };
      delete then['sites-available/app'];
      expect(now).toEqual(then);
      // Reloaded onto it: the same master, new workers, still serving.
      const after = pidsOf(name);
      expect(after.master).toBe(workers[index]!.master);
      expect(after.workers).not.toEqual(workers[index]!.workers);
      expect(fetchOn(name, port, '/')).toBe(`app on ${name}\n`);
    }

    const settled = await snapshot();
    const again = await proxyops('config', 'apply', '--spec', spec);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^unchanged on 2 hosts/);
    expect(await snapshot()).toEqual(settled);
  }, 180_000);

  it('a hand edit inside the managed lines on web2: the next apply names it there and changes no host', async () => {
    const site = siteOf('web2');
    const text = await readFile(site, 'utf8');
    await writeFile(site, text.replace('keepalive 16;', 'keepalive 32;'));
    // The user's own reload: the edit is live, and drift is what is refused here.
    await reloadOn('web2');
    const before = await snapshot();
    try {
      const result = await proxyops('config', 'apply', '--spec', spec);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(
        /^proxyops: web2: the lines proxyops manages were edited by hand .*keepalive 32;.*no host changed$/m,
      );
      expect(result.stderr).not.toContain('web1:');
      expect(await snapshot()).toEqual(before);
    } finally {
      await writeFile(site, text);
      await reloadOn('web2');
    }
  }, 120_000);

  it('a managed line edited on web2 and put back byte for byte without a reload: apply refuses as on one host, then after the reload says unchanged', async () => {
    const site = siteOf('web2');
    const text = await readFile(site, 'utf8');
    await writeFile(site, text.replace('keepalive 16;', 'keepalive 32;'));
    await writeFile(site, text);
    const before = await snapshot();
    const result = await proxyops('config', 'apply', '--spec', spec);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^proxyops: web2: ${mp}/etc/nginx/sites-(available|enabled)/app was changed at \\S+, after nginx master \\d+'s workers started: .*nginx has not loaded them; nothing changed\\. Load them with: .*kill -HUP ${pidsOf('web2').master}; no host changed$`,
        'm',
      ),
    );
    expect(result.stdout).toBe('');
    expect(await snapshot()).toEqual(before);
    await reloadOn('web2');
    const again = await proxyops('config', 'apply', '--spec', spec);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^unchanged on 2 hosts/);
  }, 120_000);

  it('a wrong target on web1 (no adoption record there, its tree adopted): apply names the state directory, exit 2, and leaves no directory behind', async () => {
    const wrong = join(hosts.root, 'wrong-target-spec.json');
    const written = JSON.parse(await readFile(spec, 'utf8')) as {
      proxies: Array<{ ssh: string; target: string }>;
    };
    written.proxies[0]!.target = `${mp}/state-new`;
    await writeFile(wrong, JSON.stringify(written));
    const before = await snapshot();
    for (const args of [['apply'], ['diff']]) {
      const result = await proxyops('config', ...args, '--spec', wrong);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(
        `${mp}/state-new/adoption.json does not exist: this is likely not the state directory`,
      );
    }
    expect(existsSync(join(hosts.host('web1').dir, 'state-new'))).toBe(false);
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it('config diff with a host it cannot reach: exit 2 (diff(1)\'s trouble, not "changes pending"), one prefixed line per host, no "no host changed"', async () => {
    const unreachable = join(hosts.root, 'unreachable-spec.json');
    const written = JSON.parse(await readFile(spec, 'utf8')) as {
      proxies: Array<{ ssh: string; target: string }>;
    };
    written.proxies.push({ ssh: 'web9.invalid', target: `${mp}/state` });
    written.proxies.push({ ssh: 'web8.invalid', target: `${mp}/state` });
    await writeFile(unreachable, JSON.stringify(written));
    const result = await proxyops('config', 'diff', '--spec', unreachable);
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^proxyops: web9\.invalid: ssh cannot resolve that name/),
      expect.stringMatching(/^proxyops: web8\.invalid: ssh cannot resolve that name/),
    ]);
    expect(result.stderr).not.toContain('changed');
  }, 120_000);

  it('undo-adopt on both hosts: every file of both trees back to the bytes before adoption', async () => {
    const diff = await proxyops('config', 'diff', '--spec', spec, '--undo-adopt');
    expect(diff.code, diff.stderr).toBe(1);
    expect(diff.stdout).toContain(`-\tserver 127.0.0.1:${appPort + 1}`);
    const result = await proxyops('config', 'apply', '--spec', spec, '--undo-adopt');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^undid the adoption: v\d{4} on 2 hosts: web1, web2$/);
    for (const [index, name] of NAMES.entries()) {
      expect(await hashTree(treeOf(name))).toEqual(unadopted[index]);
      expect(existsSync(join(hosts.host(name).dir, 'state', 'adoption.json'))).toBe(false);
      expect(fetchOn(name, port, '/')).toBe(`app on ${name}\n`);
    }
  }, 120_000);

  it('--tree to two hosts, one refusing the tree (nginx -t fails there): no host changed', async () => {
    // The new site logs to a directory only web1 has.
    await mkdir(join(hosts.host('web1').dir, 'log', 'only-web1'), { mode: 0o755 });
    const dir = await treeToShip('only-web1');
    const before = await snapshot();
    const result = await proxyops('config', 'apply', '--spec', spec, '--tree', dir);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^proxyops: web2: .*nginx -t/m);
    expect(result.stderr).toContain('no host changed');
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it('--tree with a link the hosts lack: refused in one line per host naming the ln, exit 2, no host changed', async () => {
    const dir = await treeToShip('logs');
    await symlink(`${mp}/etc/nginx/sites-available/default`, join(dir, 'sites-enabled', 'default'));
    const before = await snapshot();
    const result = await proxyops('config', 'apply', '--spec', spec, '--tree', dir);
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([
      `proxyops: web1: ${mp}/etc/nginx/sites-enabled/default is a link to ${mp}/etc/nginx/sites-available/default in the tree and not a link here; ` +
        `proxyops writes files, not links: make it first (ln -sfn ${mp}/etc/nginx/sites-available/default ${mp}/etc/nginx/sites-enabled/default)`,
      expect.stringMatching(/^proxyops: web2: .* is a link to .*; no host changed$/),
    ]);
    expect(await snapshot()).toEqual(before);
  }, 120_000);

  it('--tree whose reload fails on web2 after web1 took it: both back, byte for byte, and no version kept', async () => {
    const busy = await freePort();
    // Something else holds the new port on web2: nginx -t passes there, the reload cannot bind.
    hosts.spawnOn('web2', [
      process.execPath,
      '-e',
      `require('net').createServer().listen(${busy}, '127.0.0.1')`,
    ]);
    await waitFor(() => hosts.exec('web2', ['ss', '-Hltn', `sport = :${busy}`]).includes(`:${busy}`));
    const dir = await treeToShip('nginx');
    await writeFile(
      join(dir, 'conf.d', 'busy.conf'),
      `server {\n\tlisten 127.0.0.1:${busy};\n\treturn 204;\n}\n`,
    );
    const files = await Promise.all(NAMES.map((name) => hashTree(treeOf(name))));
    const kept = await Promise.all(NAMES.map((name) => versionsOn(name)));
    const result = await proxyops('config', 'apply', '--spec', spec, '--tree', dir);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^web1: .* reloaded/m);
    expect(result.stderr).toMatch(/^web1: back on its previous version$/m);
    expect(result.stderr).toMatch(/^proxyops: web2: .*Address already in use/m);
    for (const [index, name] of NAMES.entries()) {
      expect(await hashTree(treeOf(name))).toEqual(files[index]);
      expect(await versionsOn(name)).toEqual(kept[index]);
      expect(fetchOn(name, port, '/')).toBe(`app on ${name}\n`);
    }
  }, 120_000);

  it('--tree to two hosts: diff, apply, the same version in history on both, rollback on both', async () => {
    for (const name of NAMES)
      await mkdir(join(hosts.host(name).dir, 'log', 'only-web1'), { recursive: true, mode: 0o755 });
    const dir = await treeToShip('only-web1');
    const before = await snapshot();

    const diff = await proxyops('config', 'diff', '--spec', spec, '--tree', dir);
    expect(diff.code, diff.stderr).toBe(1);
    for (const name of NAMES) expect(diff.stdout).toContain(`== ${name}`);
    expect(diff.stdout).toContain(`+++ ${mp}/etc/nginx/conf.d/status.conf`);

    const kept = await versionsOn('web1');
    const version = `v${String(kept.length + 1).padStart(4, '0')}`;
    const result = await proxyops('config', 'apply', '--spec', spec, '--tree', dir);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`applied ${version} to 2 hosts: web1, web2`);
    for (const name of NAMES) {
      expect(await readFile(join(treeOf(name), 'conf.d', 'status.conf'), 'utf8')).toBe(
        await readFile(join(dir, 'conf.d', 'status.conf'), 'utf8'),
      );
      expect(fetchOn(name, statusPort, '/status')).toBe('shipped tree\n');
    }
    // The shipped tree equals web1's now, so web1 and web2 hold the same files.
    expect(await hashTree(treeOf('web2'))).toEqual(await hashTree(treeOf('web1')));

    const history = await proxyops('config', 'history', '--spec', spec, '--json');
    expect(history.code, history.stderr).toBe(0);
    const shown = JSON.parse(history.stdout) as Array<{
      host: string;
      versions: Array<{ version: string; record: { kind: string; conf: string; appliedAt: string } }>;
    }>;
    expect(shown.map((h) => h.host)).toEqual([...NAMES]);
    for (const { versions } of shown) {
      expect(versions.map((v) => v.version)).toEqual([...kept, version]);
      expect(versions.at(-1)!.record).toMatchObject({ kind: 'tree', conf: `${mp}/etc/nginx/nginx.conf` });
    }
    // One change: the same instant recorded on both.
    expect(shown[0]!.versions.at(-1)!.record.appliedAt).toBe(shown[1]!.versions.at(-1)!.record.appliedAt);

    const text = await proxyops('config', 'history', '--spec', spec);
    expect(text.stdout.match(/^== web\d$/gm)).toEqual(['== web1', '== web2']);
    expect(
      text.stdout.match(
        new RegExp(`^${version}  current  \\S+  tree .*conf\\.d/status\\.conf \\+5 -0$`, 'gm'),
      ),
    ).toHaveLength(2);

    const same = await proxyops('config', 'diff', '--spec', spec, '--tree', dir);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe('');

    const back = await proxyops('config', 'rollback', '--spec', spec);
    expect(back.code, back.stderr).toBe(0);
    // It names what it undid, and the version every host recorded the rollback as.
    expect(back.stdout).toMatch(new RegExp(`^rolled back ${version}: v\\d{4} on 2 hosts: web1, web2$`));
    for (const name of NAMES) {
      expect(await hashTree(treeOf(name))).toEqual(before[`${name} files`]);
      expect(existsSync(join(treeOf(name), 'conf.d', 'status.conf'))).toBe(false);
    }
  }, 240_000);

  it('a session that ends after the switch without finish: that host puts every byte back and keeps no version', async () => {
    const dir = await treeToShip('nginx');
    await writeFile(join(dir, 'conf.d', 'gone.conf'), '# shipped, then the near side went away\n');
    const { readSpecFile } = await import('../../../proxy-config/shell/read-spec-file.js');
    const { readTreeDir } = await import('../../../proxy-config/shell/nginx/read-tree-dir.js');
    const source = { kind: 'files' as const, ...(await readTreeDir(dir, 'nginx.conf')) };
    const before = await snapshot();
    const kept = await versionsOn('web1');
    const previous = process.env.PROXYOPS_SSH_CONFIG;
    process.env.PROXYOPS_SSH_CONFIG = hosts.sshConfig;
    const host = createSshHost('web1');
    try {
      const session = openStepSession(host, `${mp}/state`);
      const request = {
        spec: await readSpecFile(spec),
        source,
        appliedAt: new Date().toISOString(),
      };
      expect(await session.request({ step: 'prepare-tree', ...request })).toMatchObject({ step: 'prepared' });
      expect(await session.request({ step: 'switch', version: 'v0042' })).toMatchObject({
        step: 'switched',
        version: 'v0042',
      });
      expect(existsSync(join(treeOf('web1'), 'conf.d', 'gone.conf'))).toBe(true);
      await session.end();
    } finally {
      await host.close();
      process.env.PROXYOPS_SSH_CONFIG = previous;
    }
    expect(await hashTree(treeOf('web1'))).toEqual(before['web1 files']);
    expect(await versionsOn('web1')).toEqual(kept);
    expect(pidsOf('web1').master).toBe((before['web1 processes'] as { master: number }).master);
    expect(fetchOn('web1', port, '/')).toBe('app on web1\n');
  }, 60_000);
});
