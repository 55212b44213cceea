import { lstat, readFile, readlink, utimes, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reloadAndConfirm } from '../../../proxy-config/shell/nginx/reload-nginx.js';
import { runBuiltCli } from '../../support/built-cli.js';
import {
  buildDebianTree,
  hashTree,
  snapshotOutsideBlock,
  type DebianTree,
} from '../../support/debian-tree.js';
import { freePort } from '../../support/ports.js';

// `config apply --spec S` on a hand-written Debian tree run by its own master (root, workers as
// nobody): the adoption touches only the lines of `upstream app`, nginx loads it with the same
// master, a second apply is a no-op, and undo, rollback and every refusal leave the exact bytes.
describe('config apply on a hand-written tree', () => {
  let tree: DebianTree;
  let state: string;
  let spec: string;
  let original: Record<string, string>;
  let p1: number;
  let p2: number;
  let a1: number;
  let a2: number;
  let listenPort: number;
  // Only the alternate of 127.0.0.2 answers: a request reaches it once nginx runs the adopted block.
  const alternate = createServer((_, res) => res.end('alternate'));
  const get = () =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      request({ host: '127.0.0.1', port: listenPort, path: '/', agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
        .on('error', reject)
        .end();
    });
  const cli = (...args: string[]) => runBuiltCli(['config', ...args, '--spec', spec, '--target', state]);
  const dumped = async () =>
    (await execa('nginx', ['-T', '-q', '-p', tree.prefix, '-c', tree.conf], { reject: false })).stdout;
  const writeSpec = (alternates: [string, string]) =>
    writeFile(
      spec,
      JSON.stringify({
        version: 1,
        nginx: { conf: tree.conf },
        upstreams: {
          app: {
            servers: [
              { host: '127.0.0.2', port: p1, alternate: alternates[0] },
              { host: '127.0.0.3', port: p2, alternate: alternates[1] },
            ],
          },
        },
      }),
    );

  beforeAll(async () => {
    [p1, p2, a1, a2, listenPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    await new Promise<void>((resolve) => alternate.listen(a1, '127.0.0.2', resolve));
    tree = await buildDebianTree({
      servers: [
        { host: '127.0.0.2', port: p1 },
        { host: '127.0.0.3', port: p2 },
      ],
      listenPort,
    });
    state = join(tree.root, 'state');
    spec = join(tree.root, 'spec.json');
    await writeSpec([`127.0.0.2:${a1}`, `127.0.0.3:${a2}`]);
    await tree.start();
    original = await hashTree(tree.dir);
  });

  afterAll(async () => {
    alternate.close();
    await tree?.remove();
  });

  it('shows the lines it will add, and adoption changes only the block; nginx loads it with the same master', async () => {
    const diff = await cli('diff');
    expect(diff.code).toBe(1);
    const added = diff.stdout.split('\n').filter((l) => /^[-+][^-+]/.test(l));
    // Each partner line after its server's, with its indentation (a tab) and parameters.
    expect(added).toEqual([
      `+\tserver 127.0.0.2:${a1} max_fails=1 fail_timeout=1s;  # proxyops: alternate of 127.0.0.2:${p1}`,
      `+\tserver 127.0.0.3:${a2} max_fails=1 fail_timeout=1s;  # proxyops: alternate of 127.0.0.3:${p2}`,
    ]);

    expect((await get()).status).toBe(502);
    const before = await snapshotOutsideBlock(tree);
    const pids = await tree.pids();
    const applied = await cli('apply');
    expect(applied.stderr).not.toMatch(/error/i);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/^adopted: v0001 \(/);

    expect(await snapshotOutsideBlock(tree)).toEqual(before);
    expect((await lstat(tree.siteLink)).isSymbolicLink()).toBe(true);
    expect(await readlink(tree.siteLink)).toBe(tree.upstreamFile);
    const after = await tree.pids();
    expect(after.master).toBe(pids.master);
    expect(after.workers.filter((pid) => pids.workers.includes(pid))).toEqual([]);
    const live = await dumped();
    expect(live).toContain(`# proxyops: alternate of 127.0.0.2:${p1}`);
    expect(live).toContain(`# proxyops: alternate of 127.0.0.3:${p2}`);
    // nginx passes over the dead servers (proxy_next_upstream error) to the one that answers.
    expect(await get()).toEqual({ status: 200, body: 'alternate' });
  });

  it('a second apply is a no-op: nothing written, no reload, no version', async () => {
    const hashes = await hashTree(tree.dir);
    const pids = await tree.pids();
    const again = await cli('apply', '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ kind: 'adopt', unchanged: true, files: [] });
    expect(await hashTree(tree.dir)).toEqual(hashes);
    expect(await tree.pids()).toEqual(pids);
    const history = JSON.parse((await cli('history', '--json')).stdout) as Array<{ version: string }>;
    expect(history.map((h) => h.version)).toEqual(['v0001']);
  });

  it('undo-adopt gives back the exact original bytes, through the link', async () => {
    const diff = await cli('diff', '--undo-adopt');
    expect(diff.code).toBe(1);
    expect(diff.stdout.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual([
      `-\tserver 127.0.0.2:${a1} max_fails=1 fail_timeout=1s;  # proxyops: alternate of 127.0.0.2:${p1}`,
      `-\tserver 127.0.0.3:${a2} max_fails=1 fail_timeout=1s;  # proxyops: alternate of 127.0.0.3:${p2}`,
    ]);
    const watched = await cli('apply', '--undo-adopt', '--watch', '5');
    expect(watched.code).toBe(2);
    expect(watched.stderr).toContain('--watch, --rollback-on-5xx and --servers-from apply to rendered specs');
    // The alternate of 127.0.0.2 is what serves: dropping its line would leave nginx nothing.
    const hashes = await hashTree(tree.dir);
    const cut = await cli('apply', '--undo-adopt');
    expect(cut.code).toBe(2);
    expect(cut.stderr).toMatch(
      new RegExp(
        `^proxyops: upstream app: the change drops the line of 127\\.0\\.0\\.2:${a1}, where an instance serves now: .*\\[drops-serving-line\\]\\n$`,
      ),
    );
    expect(await hashTree(tree.dir)).toEqual(hashes);
    expect(await get()).toEqual({ status: 200, body: 'alternate' });
    await new Promise((resolve) => alternate.close(resolve));
    const undone = await cli('apply', '--undo-adopt');
    expect(undone.code).toBe(0);
    expect(undone.stdout).toMatch(/^undid the adoption: v0002 /);
    expect(await hashTree(tree.dir)).toEqual(original);
    expect(await dumped()).not.toContain('# proxyops');
    expect((await get()).status).toBe(502);
  });

  it('a change nginx -t refuses leaves every byte as it was and nginx untouched', async () => {
    await writeSpec(['127.0.0.2:70000', `127.0.0.3:${a2}`]);
    const pids = await tree.pids();
    const refused = await cli('apply');
    await writeSpec([`127.0.0.2:${a1}`, `127.0.0.3:${a2}`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/nginx -t refused the changed tree, nothing changed: .*invalid port/);
    expect(refused.stderr).toContain(tree.siteLink);
    expect(await hashTree(tree.dir)).toEqual(original);
    expect(await tree.pids()).toEqual(pids);
  });

  it('refuses (exit 2, nothing changed) when a file changed after the workers started', async () => {
    const gzip = join(tree.dir, 'conf.d', 'gzip.conf');
    await utimes(gzip, new Date(), new Date());
    const pids = await tree.pids();
    const refused = await cli('apply');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^proxyops: ${gzip} was changed at .* Load them with: \\S*nginx -t -p \\S+/ -c ${tree.conf} && kill -HUP ${pids.master} `,
      ),
    );
    expect(await hashTree(tree.dir)).toEqual(original);
    expect(await tree.pids()).toEqual(pids);
    // The person's own reload: nginx now runs what is on disk.
    await reloadAndConfirm(pids.master, tree.errorLog, 30_000);
  });

  it('rollback undoes the last change, and history lists every change', async () => {
    expect((await cli('apply')).code).toBe(0);
    expect(await hashTree(tree.dir)).not.toEqual(original);
    const back = await cli('rollback');
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/^rolled back: v0004 /);
    expect(await hashTree(tree.dir)).toEqual(original);
    expect(await readFile(join(state, 'adoption.json'), 'utf8').catch(() => 'none')).toBe('none');
    const history = (await cli('history')).stdout.trimEnd().split('\n');
    expect(
      history.map((line) =>
        line
          .replace(/\s+\S+Z\s+/, ' ')
          .split(/\s+/)
          .slice(0, 3),
      ),
    ).toEqual([
      ['v0001', 'adopt', tree.siteLink],
      ['v0002', 'undo-adopt', tree.siteLink],
      ['v0003', 'adopt', tree.siteLink],
      ['v0004', 'current', 'rollback'],
    ]);
    // Without --target, the spec's own nginx.state is where the history is.
    const own = join(tree.root, 'own-state.json');
    await writeFile(
      own,
      JSON.stringify({ ...JSON.parse(await readFile(spec, 'utf8')), nginx: { conf: tree.conf, state } }),
    );
    const fromSpec = await runBuiltCli(['config', 'history', '--spec', own]);
    expect(fromSpec.stdout.trimEnd().split('\n')).toEqual(history);
  });
});

describe('config apply on a hand-written tree no nginx runs', () => {
  let tree: DebianTree;

  beforeAll(async () => {
    tree = await buildDebianTree({
      servers: [{ host: '127.0.0.2', port: 3001 }],
      listenPort: await freePort(),
    });
  });

  afterAll(async () => {
    await tree?.remove();
  });

  it('tests and writes the change, and reloads nothing', async () => {
    const spec = join(tree.root, 'spec.json');
    await writeFile(
      spec,
      JSON.stringify({
        version: 1,
        nginx: { conf: tree.conf, state: join(tree.root, 'state') },
        upstreams: { app: { servers: [{ host: '127.0.0.2', port: 3001, alternate: '127.0.0.2:3002' }] } },
      }),
    );
    const applied = await runBuiltCli(['config', 'apply', '--spec', spec, '--json']);
    expect(applied.code).toBe(0);
    const report = JSON.parse(applied.stdout) as { version: string; reload?: unknown };
    expect(report.version).toBe('v0001');
    expect(report.reload).toBeUndefined();
    expect(await readFile(tree.upstreamFile, 'utf8')).toContain(
      '\tserver 127.0.0.2:3002 max_fails=1 fail_timeout=1s;  # proxyops: alternate of 127.0.0.2:3001\n',
    );
    expect((await runBuiltCli(['config', 'apply', '--spec', spec])).stdout).toMatch(/^unchanged: /);
  });
});
