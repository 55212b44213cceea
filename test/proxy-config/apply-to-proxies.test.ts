import { existsSync } from 'node:fs';
import { mkdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION_RECORD_FILE } from '../../proxy-config/core/apply/config-change.js';
import {
  renderVersionManifest,
  VERSION_MANIFEST_FILE,
} from '../../proxy-config/core/apply/version-manifest.js';
import type { ProxySpec } from '../../proxy-config/core/spec/proxy-spec.js';
import { renderSpec } from '../../proxy-config/config/render-config.js';
import { createSshHost } from '../../proxy-config/shell/host/ssh-host.js';
import { openStepSession } from '../../proxy-config/shell/host/step-session.js';
import { freePort } from '../support/ports.js';
import { startTestHosts, type TestHosts } from '../support/ssh-hosts.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = join(ROOT, 'dist/cli/main.js');

/** Names a shell would run if they reached it unquoted; each would leave a `pwned-proxyops` file. */
const HOSTILE_DIR = 'etc $(touch pwned-proxyops); `touch pwned-proxyops` \'q"\nx';
const PWNED = ['/root/pwned-proxyops', '/tmp/pwned-proxyops', join(ROOT, 'pwned-proxyops')];

let hosts: TestHosts;
let mp: string;
let port: number;
let appPort: number;
let specCount = 0;

/** Runs the built CLI the way a person would, with the test hosts' ssh config. */
async function proxyops(...args: string[]) {
  const result = await execa('node', [CLI, ...args], {
    reject: false,
    cwd: ROOT,
    timeout: 90_000,
    env: hosts.env,
  });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** A spec for the nginx hosts `names`, answering with X-Served-By: `layer`. */
async function writeSpec(
  layer: string,
  options: {
    names?: string[];
    extraPort?: number;
    accessLogDir?: string;
    target?: string;
    pidFile?: string;
  } = {},
): Promise<string> {
  const spec = {
    version: 1,
    layerName: layer,
    paths: { pidFile: options.pidFile ?? `${mp}/run/nginx.pid`, tempDir: `${mp}/temp` },
    workers: { processes: 1, connections: 256, rlimitNofile: 1024 },
    accessLog: { path: `${mp}/${options.accessLogDir ?? 'logs'}/access.log`, buffer: null },
    errorLog: { path: `${mp}/logs/error.log` },
    upstreams: { app: { servers: [{ host: '127.0.0.1', port: appPort }], keepalive: 4 } },
    servers: [
      {
        names: ['localhost'],
        listen: [
          { address: '0.0.0.0', port, defaultServer: true },
          ...(options.extraPort ? [{ address: '0.0.0.0', port: options.extraPort }] : []),
        ],
        routes: [{ path: '/', upstream: 'app' }],
      },
    ],
    proxies: (options.names ?? ['web1', 'web2']).map((ssh) => ({
      ssh,
      target: options.target ?? `${mp}/etc`,
    })),
  };
  const path = join(hosts.root, `spec-${++specCount}.json`);
  await writeFile(path, JSON.stringify(spec, null, 2));
  return path;
}

/** The layer that answers a GET through the host's nginx. */
function servedBy(name: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const req = request({ host: hosts.host(name).address, port, path: '/', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers['x-served-by'] as string | undefined));
    });
    req.once('error', reject);
    req.end();
  });
}

const current = (name: string) => readlink(join(hosts.host(name).dir, 'etc', 'current'));

beforeAll(async () => {
  for (const path of PWNED) await rm(path, { force: true });
  hosts = await startTestHosts(['web1', 'web2', 'web3', 'web4']);
  hosts.trust('web1');
  hosts.trust('web2');
  hosts.trust('web4');
  mp = hosts.host('web1').mountPoint;
  port = await freePort();
  appPort = await freePort();
  for (const name of ['web1', 'web2']) {
    const { dir } = hosts.host(name);
    for (const sub of ['run', 'logs', 'temp']) await mkdir(join(dir, sub), { recursive: true, mode: 0o755 });
    // The application each nginx host fronts, on its own loopback.
    hosts.spawnOn(name, [
      process.execPath,
      '-e',
      `require('http').createServer((q, s) => s.end('ok')).listen(${appPort}, '127.0.0.1')`,
    ]);
  }
  await mkdir(join(hosts.host('web1').dir, 'logs-new'), { mode: 0o755 });
});

afterAll(async () => {
  await hosts?.teardown();
});

describe('config apply to every nginx host of the spec, as one change', () => {
  it('installs on every host, then reloads every running nginx onto one version', async () => {
    const first = await proxyops('config', 'apply', '--spec', await writeSpec('layer-a'));
    expect(first.stderr).toContain('validated on 2 hosts');
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('applied v0001 to 2 hosts: web1, web2');
    for (const name of ['web1', 'web2']) {
      expect(await current(name)).toBe('versions/v0001');
      hosts.exec(name, ['nginx', '-c', `${mp}/etc/current/nginx.conf`]);
    }
    await waitFor(
      async () => (await servedBy('web1')) === 'layer-a' && (await servedBy('web2')) === 'layer-a',
    );

    const specPath = await writeSpec('layer-b');
    const second = await proxyops('config', 'apply', '--spec', specPath);
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(/web1: v0001 -> v0002, reloaded, workers \d+ -> \d+/);
    expect(second.stderr).toMatch(/web2: v0001 -> v0002, reloaded/);
    expect(await servedBy('web1')).toBe('layer-b');
    expect(await servedBy('web2')).toBe('layer-b');
    // One record on every host: the same version name, instant and spec digest.
    const records = await Promise.all(
      ['web1', 'web2'].map((name) =>
        readFile(join(hosts.host(name).dir, 'etc/versions/v0002', VERSION_RECORD_FILE), 'utf8'),
      ),
    );
    expect(records[0]).toBe(records[1]);

    // The same render again: no new version, no reload anywhere.
    const again = await proxyops('config', 'apply', '--spec', specPath);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('unchanged on 2 hosts: web1 v0002, web2 v0002 (nothing written, no reload)');
    expect(await current('web1')).toBe('versions/v0002');

    const diff = await proxyops('config', 'diff', '--spec', await writeSpec('layer-c'));
    expect(diff.code).toBe(1);
    expect(diff.stdout).toContain('== web1');
    expect(diff.stdout).toContain('== web2');
    expect(diff.stdout).toContain('layer-c');

    const history = await proxyops('config', 'history', '--spec', specPath, '--json');
    expect(history.code).toBe(0);
    const shown = JSON.parse(history.stdout) as Array<{
      host: string;
      versions: Array<{ version: string; current: boolean }>;
    }>;
    expect(shown.map((h) => h.host)).toEqual(['web1', 'web2']);
    for (const { versions } of shown)
      expect(versions.map((v) => `${v.version}${v.current ? '*' : ''}`)).toEqual(['v0001', 'v0002*']);
    // Seven runs over SSH, each a ControlMaster, a version check and a remote proxyops: 30 s is too short on a busy machine.
  }, 180_000);

  it("one host's nginx -t fails: no host changed", async () => {
    // logs-new exists on web1 only: nginx -t on web2 cannot open the access log there.
    const result = await proxyops(
      'config',
      'apply',
      '--spec',
      await writeSpec('layer-d', { accessLogDir: 'logs-new' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^proxyops: web2: .*nginx -t failed/m);
    expect(result.stderr).toContain('no host changed');
    for (const name of ['web1', 'web2']) {
      expect(await current(name)).toBe('versions/v0002');
      expect(await servedBy(name)).toBe('layer-b');
      expect(existsSync(join(hosts.host(name).dir, 'etc/versions/v0003'))).toBe(false);
      expect(existsSync(join(hosts.host(name).dir, 'etc/.proxyops.lock'))).toBe(false);
    }
  });

  it('a reload fails on web2 after web1 took the new config: both back on the old version', async () => {
    const busy = await freePort();
    // Something else holds the new port on web2: nginx -t passes there, the reload cannot bind.
    hosts.spawnOn('web2', [
      process.execPath,
      '-e',
      `require('net').createServer().listen(${busy}, '0.0.0.0')`,
    ]);
    await waitFor(async () => hosts.exec('web2', ['ss', '-Hltn', `sport = :${busy}`]).includes(`:${busy}`));
    const result = await proxyops(
      'config',
      'apply',
      '--spec',
      await writeSpec('layer-e', { extraPort: busy }),
    );
    expect(result.code).toBe(1);
    // web1 had taken it: reloaded, then put back.
    expect(result.stderr).toMatch(/^web1: v0002 -> v0003, reloaded/m);
    expect(result.stderr).toMatch(/^web1: back on its previous version$/m);
    expect(result.stderr).toMatch(
      /^proxyops: web2: nginx did not take the new config: .*Address already in use/m,
    );
    expect(result.stderr).toContain('web1 back on the previous version');
    for (const name of ['web1', 'web2']) {
      expect(await current(name)).toBe('versions/v0002');
      expect(await servedBy(name)).toBe('layer-b');
    }
  }, 60_000);

  it('an unknown host key stops the change before anything runs, in one line naming the fix (ssh -F as proxyops reads it)', async () => {
    const result = await proxyops(
      'config',
      'apply',
      '--spec',
      await writeSpec('layer-f', { names: ['web1', 'web3'] }),
    );
    expect(result.code).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `proxyops: web3: its host key is not in ${hosts.knownHosts}; nothing was done. Check the key and add it with: ` +
        `ssh-keyscan ${hosts.host('web3').address} >> ${hosts.knownHosts} (or connect once with: ssh -F ${hosts.sshConfig} web3); no host changed`,
    );
    expect(await current('web1')).toBe('versions/v0002');
  });

  it('a lost host stops the change before any host changed, naming the host', async () => {
    await hosts.lose('web4', 'sshd');
    const result = await proxyops(
      'config',
      'apply',
      '--spec',
      await writeSpec('layer-i', { names: ['web1', 'web4'] }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^proxyops: web4: lost or unreachable over ssh .*; no host changed$/m);
    expect(await current('web1')).toBe('versions/v0002');
    expect(await servedBy('web1')).toBe('layer-b');
  });

  it('a proxyops of another version on a host: one line naming the host and the install', async () => {
    const wrapper = join(hosts.root, 'bin', 'proxyops');
    const real = await readFile(wrapper, 'utf8');
    await writeFile(wrapper, '#!/bin/sh\necho 0.0.1\n');
    try {
      const result = await proxyops('config', 'apply', '--spec', await writeSpec('layer-g'));
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        /^proxyops: web1 runs proxyops 0\.0\.1, this is \d+\.\d+\.\d+; install proxyops/,
      );
      expect(await current('web1')).toBe('versions/v0002');
    } finally {
      await writeFile(wrapper, real);
    }
  });

  it('a fresh target whose pid file names the nginx of another target: refused on that host before anything is swapped or signalled, exit 2', async () => {
    const target = `${mp}/etc-fresh`;
    const before = await current('web1');
    const result = await proxyops(
      'config',
      'apply',
      '--spec',
      await writeSpec('layer-f', { names: ['web1'], target }),
    );
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `which runs -c ${mp}/etc/current/nginx.conf, and ${target} holds no applied config yet`,
    );
    expect(existsSync(join(hosts.host('web1').dir, 'etc-fresh', 'current'))).toBe(false);
    expect(await current('web1')).toBe(before);
  });

  it('a hostile target path is a path: nothing injected', async () => {
    const target = `${mp}/${HOSTILE_DIR}`;
    // A pid file of its own: the host's nginx runs the config of another target (refused above).
    const pidFile = `${mp}/run/hostile.pid`;
    const result = await proxyops(
      'config',
      'apply',
      '--spec',
      await writeSpec('layer-h', { names: ['web1'], target, pidFile }),
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(await readlink(join(hosts.host('web1').dir, HOSTILE_DIR, 'current'))).toBe('versions/v0001');
    for (const path of PWNED) expect(existsSync(path)).toBe(false);
    expect(existsSync(join(hosts.host('web1').dir, 'pwned-proxyops'))).toBe(false);
  });

  it('the far side undoes its part when its session ends before finish: the near side gone, or the host lost', async () => {
    const specPath = await writeSpec('layer-j', { names: ['web1'] });
    const { readProxiesSpec } = await import('../../proxy-config/config/apply-to-proxies.js');
    const spec = await readProxiesSpec(specPath);
    const files = await renderFiles(spec);
    const previous = process.env.PROXYOPS_SSH_CONFIG;
    process.env.PROXYOPS_SSH_CONFIG = hosts.sshConfig;
    try {
      for (const ending of ['near side gone', 'host lost'] as const) {
        const name = ending === 'host lost' ? 'web2' : 'web1';
        const host = createSshHost(name);
        const session = openStepSession(host, `${mp}/etc`);
        try {
          const prepared = await session.request({
            step: 'prepare',
            files,
            spec,
            specDigest: 'test',
            appliedAt: new Date().toISOString(),
          });
          expect(prepared).toMatchObject({ step: 'prepared', current: 'v0002', nginxRunning: true });
          const switched = await session.request({ step: 'switch', version: 'v0009' });
          expect(switched).toMatchObject({ step: 'switched', version: 'v0009' });
          expect(await servedBy(name)).toBe('layer-j');
          if (ending === 'host lost') await hosts.lose(name, 'sshd');
        } finally {
          await session.end();
          await host.close();
        }
        await waitFor(async () => (await servedBy(name)) === 'layer-b');
        await waitFor(async () => !existsSync(join(hosts.host(name).dir, 'etc/.proxyops.lock')));
        expect(await current(name)).toBe('versions/v0002');
      }
    } finally {
      process.env.PROXYOPS_SSH_CONFIG = previous;
    }
  }, 60_000);
});

async function renderFiles(spec: ProxySpec): Promise<Record<string, string>> {
  return { ...(await renderSpec(spec)), [VERSION_MANIFEST_FILE]: renderVersionManifest(spec) };
}

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}
