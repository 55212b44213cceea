import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli } from '../../support/built-cli.js';
import { buildDebianTree, hashTree, type DebianTree } from '../../support/debian-tree.js';
import { freePort } from '../../support/ports.js';

// After a deploy on the alternate path the instances serve on the alternates and the primaries are
// stopped: an undo, a rollback or an apply that drops a serving alternate's line would leave nginx a
// pool nothing serves (issue 36, trial findings 1-3). Each is refused with exit 2 and nothing
// changes (every byte of the tree and the state dir, the master and its workers), while the site
// keeps serving; once the instances are deployed back onto the primaries, the undo goes through.
// Each case runs the built CLI several times against a real nginx: minutes on a loaded CI machine.
describe('a change that would cut off the instances that serve', { timeout: 120_000 }, () => {
  let tree: DebianTree;
  let state: string;
  let spec: string;
  let p1: number;
  let p2: number;
  let a1: number;
  let a2: number;
  let listenPort: number;
  let running: Server[] = [];

  const cli = (...args: string[]) => runBuiltCli(['config', ...args, '--spec', spec]);
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
  const writeSpec = (path: string, alternates: [string, string]) =>
    writeFile(
      path,
      JSON.stringify({
        version: 1,
        nginx: { conf: tree.conf, state },
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
  /** Instances on `at`, recorded in the state as a deploy by hooks records them (no pid), and answering. */
  const serveOn = async (at: Array<{ host: string; port: number }>) => {
    await Promise.all(running.map((s) => new Promise((resolve) => s.close(resolve))));
    running = await Promise.all(
      at.map(
        ({ host, port }) =>
          new Promise<Server>((resolve) => {
            const server = createServer((_, res) => res.end(`${host}:${port}`));
            server.listen(port, host, () => resolve(server));
          }),
      ),
    );
    await mkdir(state, { recursive: true });
    await writeFile(
      join(state, 'instances.json'),
      `${JSON.stringify({ version: 1, upstreams: { app: at.map((a) => ({ ...a, inUpstream: true })) } }, null, 2)}\n`,
      { mode: 0o600 },
    );
  };
  /** Every byte of the tree and of the state dir, and the nginx processes. */
  const snapshot = async () => ({
    tree: await hashTree(tree.dir),
    state: await hashTree(state),
    pids: await tree.pids(),
  });
  /** A refusal: exit 2, its one line (after a rollback's progress line), nothing changed, the alternates still serving. */
  const expectRefused = async (args: string[], expected: unknown[]) => {
    const before = await snapshot();
    const result = await cli(...args);
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual(expected);
    expect(result.stdout).toBe('');
    expect(await snapshot()).toEqual(before);
    for (let i = 0; i < 4; i++)
      expect((await get()).body).toMatch(new RegExp(`^127\\.0\\.0\\.[23]:(${a1}|${a2})$`));
  };

  beforeAll(async () => {
    [p1, p2, a1, a2, listenPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    tree = await buildDebianTree({
      servers: [
        { host: '127.0.0.2', port: p1 },
        { host: '127.0.0.3', port: p2 },
      ],
      listenPort,
      workers: 1,
    });
    // Mastodon's dist/nginx.conf writes fail_timeout=0: the alternate copies it.
    const site = await readFile(tree.upstreamFile, 'utf8');
    await writeFile(
      tree.upstreamFile,
      site.replace('fail_timeout=1s;   # primary', 'fail_timeout=0;   # primary'),
    );
    state = join(tree.root, 'state');
    spec = join(tree.root, 'adopt.json');
    await writeSpec(spec, [`127.0.0.2:${a1}`, `127.0.0.3:${a2}`]);
    await tree.start();
  });

  afterAll(async () => {
    await Promise.all(running.map((s) => new Promise((resolve) => s.close(resolve))));
    await tree?.remove();
  });

  it('adopts, warning of the alternate nginx never rests', async () => {
    await serveOn([
      { host: '127.0.0.2', port: p1 },
      { host: '127.0.0.3', port: p2 },
    ]);
    const diff = await cli('diff');
    expect(diff.code).toBe(1);
    const warning = `warning: ${tree.siteLink}:7: the alternate 127.0.0.2:${a1} has fail_timeout=0 (copied from its primary's line): nginx never rests it, so every request nginx sends there costs a refused connect and an error.log line until a deploy starts an instance on it; give the primary's line fail_timeout above 0 to have it rested (proxyops copies the parameters as they are)`;
    expect(diff.stderr.trimEnd().split('\n')).toEqual([warning]);
    const applied = await cli('apply');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toMatch(/^adopted: v0001 /);
    expect(applied.stderr.trimEnd().split('\n')).toContain(warning);
  });

  it('refuses the undo and the rollback while the instances serve on the alternates', async () => {
    // What a deploy on the alternate path leaves: the primaries stopped, the alternates recorded and serving.
    await serveOn([
      { host: '127.0.0.2', port: a1 },
      { host: '127.0.0.3', port: a2 },
    ]);
    const cut = `proxyops: upstream app: the change drops the line of 127.0.0.2:${a1}, 127.0.0.3:${a2}, where instances serve now: nginx would send them nothing and nothing would serve the lines it keeps; deploy the upstream back to the addresses the change keeps first: proxyops deploy --spec ${spec} --upstream app (each instance moves to the other address of its pair: 127.0.0.2:${a1} -> 127.0.0.2:${p1}, 127.0.0.3:${a2} -> 127.0.0.3:${p2}), then run this again; nothing changed [drops-serving-line]`;
    await expectRefused(['apply', '--undo-adopt'], [cut]);
    await expectRefused(['rollback'], [expect.stringMatching(/^rolling back v0001 \(adopt, /), cut]);
  });

  it('refuses an apply whose spec moves a serving alternate elsewhere', async () => {
    const moved = join(tree.root, 'alt2.json');
    const a3 = await freePort();
    await writeSpec(moved, [`127.0.0.2:${a1}`, `127.0.0.3:${a3}`]);
    const before = await snapshot();
    const result = await runBuiltCli(['config', 'apply', '--spec', moved]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `proxyops: upstream app: the change drops the line of 127.0.0.3:${a2}, where an instance serves now: nginx would send it nothing; deploy the upstream back to the addresses the change keeps first: proxyops deploy --spec ADOPTED (the spec this block was adopted with: ${moved} no longer pairs 127.0.0.3:${a2} with 127.0.0.3:${p2}) --upstream app`,
    );
    expect(await snapshot()).toEqual(before);
  });

  it('undoes the adoption once the instances are back on the primaries', async () => {
    await serveOn([
      { host: '127.0.0.2', port: p1 },
      { host: '127.0.0.3', port: p2 },
    ]);
    const undone = await cli('apply', '--undo-adopt');
    expect(undone.stderr).toBe('validated: nginx -t ok on a copy of the changed tree\n');
    expect(undone.code).toBe(0);
    expect(undone.stdout).toMatch(/^undid the adoption: v0002 /);
    for (let i = 0; i < 4; i++)
      expect((await get()).body).toMatch(new RegExp(`^127\\.0\\.0\\.[23]:(${p1}|${p2})$`));
  });
});
