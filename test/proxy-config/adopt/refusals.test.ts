import { lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { workersStartedAt } from '../../../proxy-config/shell/nginx/loaded-since.js';
import { runBuiltCli } from '../../support/built-cli.js';
import { buildDebianTree, hashTree, type DebianTree } from '../../support/debian-tree.js';
import { freePort } from '../../support/ports.js';

// Every refusal of `config apply` on a hand-written tree, through the built CLI: one line on
// stderr naming the construct, exit 2, and nothing changed (every file's sha256, the state dir,
// and, where a master runs, the same master and workers: no reload).

type Address = { host: string; port: number };

let tree: DebianTree | undefined;

afterEach(async () => {
  await tree?.remove();
  tree = undefined;
});

/** The spec's upstreams by default: the tree's one app server (blue), paired with green. */
const PAIRED = (blue: Address, green: Address) => ({
  app: { servers: [{ ...blue, alternate: `${green.host}:${green.port}` }] },
});

/** A fresh Debian tree (upstream app lists blue), its spec and its state dir. */
async function setUp(upstreams: (blue: Address, green: Address) => Record<string, unknown> = PAIRED) {
  const port = await freePort();
  const blue = { host: '127.0.0.2', port: await freePort() };
  const green = { host: '127.0.0.3', port: blue.port };
  tree = await buildDebianTree({ servers: [blue], listenPort: port, workers: 1 });
  const state = join(tree.root, 'state');
  const spec = join(tree.root, 'spec.json');
  const written = {
    version: 1,
    nginx: { conf: tree.conf, pidFile: tree.pidFile, state },
    upstreams: upstreams(blue, green),
  };
  await writeFile(spec, JSON.stringify(written, null, 2));
  return { tree, spec, state, blue };
}

/** Everything that must not change: every file of the tree and of the state dir, and the nginx pids. */
async function snapshot(at: DebianTree, state: string, master: boolean) {
  const stateFiles = await hashTree(state).catch(() => ({}));
  return { tree: await hashTree(at.dir), state: stateFiles, pids: master ? await at.pids() : undefined };
}

/** `config apply --spec S` refused: exit 2, one line naming `expected`, nothing changed. */
async function expectRefused(
  setup: { tree: DebianTree; spec: string; state: string },
  expected: RegExp,
  options: { master: boolean; args?: string[] },
) {
  const before = await snapshot(setup.tree, setup.state, options.master);
  const result = await runBuiltCli(['config', 'apply', '--spec', setup.spec, ...(options.args ?? [])]);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(expected);
  expect(result.code).toBe(2);
  expect(await snapshot(setup.tree, setup.state, options.master)).toEqual(before);
}

/** Replaces text in a file of the tree (through the site's symlink when it is the upstream's file). */
async function edit(path: string, change: (text: string) => string): Promise<void> {
  await writeFile(path, change(await readFile(path, 'utf8')));
}

const APP_SERVER = /\tserver 127\.0\.0\.2:\d+ {3}max_fails=1 fail_timeout=1s; {3}# primary\n/;

describe('config apply on a hand-written tree it cannot safely edit', () => {
  it('refuses an upstream the tree does not define, naming the ones it does', async () => {
    const setup = await setUp(() => ({ api: { servers: [{ host: '127.0.0.2', port: 1 }] } }));
    await setup.tree.start();
    await expectRefused(
      setup,
      /no upstream api in the \d+ files .*it defines (app, legacy_reports|legacy_reports, app)\).*\[upstream-not-found\]/,
      {
        master: true,
      },
    );
  });

  it('refuses an upstream defined twice, naming both places', async () => {
    const setup = await setUp();
    // nginx itself refuses this tree (duplicate upstream): no master can run it.
    await writeFile(
      join(setup.tree.dir, 'conf.d', 'app-old.conf'),
      'upstream app {\n\tserver 127.0.0.9:1;\n}\n',
    );
    await expectRefused(
      setup,
      /conf\.d\/app-old\.conf:1: upstream app is defined again at .*sites-enabled\/app:4: .*\[upstream-defined-twice\]/,
      {
        master: false,
      },
    );
  });

  it('refuses server lines from a wildcard include matching several files', async () => {
    const setup = await setUp();
    const pools = join(setup.tree.dir, 'pools');
    await mkdir(pools);
    await writeFile(join(pools, 'app-1.conf'), `server ${setup.blue.host}:${setup.blue.port};\n`);
    await writeFile(join(pools, 'app-2.conf'), 'server 127.0.0.5:1 down;\n');
    await edit(setup.tree.upstreamFile, (t) => t.replace(APP_SERVER, `\tinclude ${pools}/app-*.conf;\n`));
    await setup.tree.start();
    await expectRefused(
      setup,
      /includes .*pools\/app-\*\.conf, a wildcard matching 2 files.*\[servers-from-wildcard\]/,
      {
        master: true,
      },
    );
  });

  it('refuses a file a config manager writes, naming the tool', async () => {
    const setup = await setUp();
    await edit(setup.tree.upstreamFile, (t) => `# Ansible managed: templates/app.j2\n${t}`);
    await setup.tree.start();
    await expectRefused(
      setup,
      /says it is managed by Ansible \("Ansible managed: templates\/app\.j2"\).*\[file-managed-by-tool\]/,
      {
        master: true,
      },
    );
  });

  it('refuses a server nginx resolves at run time', async () => {
    const setup = await setUp();
    // nginx 1.22 refuses `resolve` itself (NGINX Plus, or 1.27.3 and later): no master runs it here.
    await edit(setup.tree.upstreamFile, (t) =>
      t.replace('keepalive 16;', 'server app.internal:3001 resolve;\n    keepalive 16;'),
    );
    await expectRefused(setup, /server app\.internal:3001 has resolve.*\[server-resolved-at-run-time\]/, {
      master: false,
    });
  });

  it('refuses an upstream the NGINX Plus API manages (zone with api)', async () => {
    const setup = await setUp();
    await edit(setup.tree.upstreamFile, (t) =>
      t
        .replace('keepalive 16;', 'zone app 64k;\n    keepalive 16;')
        .replace('location / {', 'location /api { api write=on; }\n    location / {'),
    );
    await expectRefused(
      setup,
      /upstream app has a zone and the config serves the API \(api at .*\[upstream-managed-by-api\]/,
      {
        master: false,
      },
    );
  });

  it('refuses a spec server the block does not list', async () => {
    const setup = await setUp(() => ({ app: { servers: [{ host: '127.0.0.7', port: 1, alternate: 2 }] } }));
    await setup.tree.start();
    await expectRefused(
      setup,
      /upstream app does not list the spec's server 127\.0\.0\.7:1 \(it lists 127\.0\.0\.2:\d+\).*\[spec-server-not-listed\]/,
      {
        master: true,
      },
    );
  });

  it('refuses a server sharing its line with another directive', async () => {
    const setup = await setUp();
    await edit(setup.tree.upstreamFile, (t) => t.replace(/ {3}# primary\n/, ' keepalive_requests 100;\n'));
    await setup.tree.start();
    await expectRefused(setup, /server 127\.0\.0\.2:\d+ shares its line.*\[server-line-shared\]/, {
      master: true,
    });
  });

  it('refuses spec servers split between the block and a file it includes', async () => {
    const setup = await setUp((blue, green) => ({
      app: {
        servers: [
          { ...blue, alternate: `${green.host}:${green.port}` },
          { host: '127.0.0.5', port: 1, alternate: 2 },
        ],
      },
    }));
    const more = join(setup.tree.dir, 'app-more.conf');
    await writeFile(more, 'server 127.0.0.5:1;\n');
    await edit(setup.tree.upstreamFile, (t) =>
      t.replace('keepalive 16;', `include ${more};\n    keepalive 16;`),
    );
    await setup.tree.start();
    await expectRefused(
      setup,
      /spec servers are written in .* and .*app-more\.conf.*\[servers-in-two-files\]/,
      {
        master: true,
      },
    );
  });

  it('refuses when the running nginx did not load the files on disk (edited after its workers started)', async () => {
    const setup = await setUp();
    await setup.tree.start();
    // After the workers' start as the check reads it (the master reads the config before it forks them).
    await workersRunning(setup.tree);
    await afterWorkersStarted(setup.tree);
    // A hand edit nobody reloaded: the next reload would take it live along with ours.
    await edit(setup.tree.otherUpstreamFile, (t) => t.replace('fail_timeout=30s', 'fail_timeout=20s'));
    await expectRefused(
      setup,
      /legacy-upstream\.conf was changed at .*after nginx master \d+'s workers started.* Load them with: \S*nginx -t -p \S+ -c \S+ && kill -HUP \d+ \(or wait/,
      {
        master: true,
      },
    );
  });

  it('refuses when the master behind the pid file runs another config', async () => {
    const setup = await setUp();
    // Same includes and pid file, another main file: a reload would not load the spec's tree.
    const other = join(setup.tree.dir, 'nginx-staging.conf');
    await writeFile(other, await readFile(setup.tree.conf, 'utf8'));
    await execa('nginx', ['-p', setup.tree.prefix, '-c', other]);
    await workersRunning(setup.tree);
    await expectRefused(
      setup,
      /runs -c .*nginx-staging\.conf, not .*nginx\.conf: a reload would not load this tree; nothing changed/,
      {
        master: true,
      },
    );
  });

  it('refuses a hand edit inside the managed block (drift) on the next apply and on undo', async () => {
    const setup = await setUp();
    await setup.tree.start();
    const adopted = await runBuiltCli(['config', 'apply', '--spec', setup.spec]);
    expect(adopted.code).toBe(0);
    expect(await readFile(setup.tree.upstreamFile, 'utf8')).toContain('# proxyops: alternate of');
    await edit(setup.tree.upstreamFile, (t) => t.replace('# proxyops: alternate of', '# alternate of'));
    // The user reloads their own edit, as they would: loaded and disk agree again.
    const { workers } = await setup.tree.pids();
    await execa('nginx', ['-p', setup.tree.prefix, '-c', setup.tree.conf, '-s', 'reload']);
    await waitForNewWorkers(setup.tree, workers);
    const drift =
      /upstream app: .*:\d+: removed "server 127\.0\.0\.3:\d+ .*# proxyops: alternate of .*", .*added ".*# alternate of/;
    await expectRefused(setup, drift, { master: true });
    await expectRefused(setup, drift, { master: true, args: ['--undo-adopt'] });
    expect((await lstat(setup.tree.siteLink)).isSymbolicLink()).toBe(true);
  });
});

/** Until the master behind the pid file has forked its workers (the pid file may not be written yet). */
async function workersRunning(at: DebianTree): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const running = await at.pids().catch(() => undefined);
    if (running && running.workers.length > 0) return;
    await sleep(20);
  }
  throw new Error(`nginx of ${at.dir} did not start its workers`);
}

/** Until the clock has passed the workers' start as the loaded-since check reads it: an edit from now on is later. */
async function afterWorkersStarted(at: DebianTree): Promise<void> {
  const { master } = await at.pids();
  for (let i = 0; i < 500; i++) {
    const started = await workersStartedAt(master);
    // Past it by more than the file clock's coarseness (a jiffy), so the edit is dated after it.
    if (started !== undefined && Date.now() > started + 50) return;
    await sleep(10);
  }
  throw new Error(`nginx of ${at.dir} did not start its workers`);
}

/** After `nginx -s reload`: waits until none of the `old` workers runs (idle, they exit at once). */
async function waitForNewWorkers(at: DebianTree, old: number[]): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const now = (await at.pids()).workers;
    if (now.length > 0 && now.every((pid) => !old.includes(pid))) return;
    await sleep(20);
  }
  throw new Error(`nginx of ${at.dir} did not replace its workers ${old.join(', ')}`);
}
