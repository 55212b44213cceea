import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adoptNginx, readAdoptedSpec, rollbackAdopted } from '../../../proxy-config/config/adopt-nginx.js';
import { workersStartedAt } from '../../../proxy-config/shell/nginx/loaded-since.js';
import { reloadAndConfirm } from '../../../proxy-config/shell/nginx/reload-nginx.js';
import { readTreeHistory } from '../../../proxy-config/shell/nginx/tree-history.js';
import { buildDebianTree, hashTree, type DebianTree } from '../../support/debian-tree.js';
import { freePort } from '../../support/ports.js';

// The adoption workflow against a real master running the hand-written tree: a wrong pid file, a
// change on disk nginx never loaded, a state dir without the record, a failed history write and a
// block put back by hand are each told apart from "unchanged" and "nothing adopted".
describe('adoption workflow fixes', () => {
  let tree: DebianTree;
  let spec: string;
  let state: string;
  let p1: number;
  let p2: number;

  const writeSpec = (extra: Record<string, unknown> = {}) =>
    writeFile(
      spec,
      JSON.stringify({
        version: 1,
        nginx: { conf: tree.conf, ...extra },
        upstreams: {
          app: {
            servers: [
              { host: '127.0.0.2', port: p1, alternate: `127.0.0.2:${p1 + 1}` },
              { host: '127.0.0.3', port: p2 },
            ],
          },
        },
      }),
    );
  const adopt = async (options: { undo?: boolean; target?: string } = {}) =>
    adoptNginx((await readAdoptedSpec(spec, options.target ?? state))!, { undo: options.undo === true });
  const failure = (run: Promise<unknown>) =>
    run.then(
      () => 'did not throw',
      (error: { code?: string; message: string }) => `${error.code} ${error.message}`,
    );
  /** Until the clock is past the workers' start, so a write now counts as after it (no assertion on time). */
  const pastWorkersStart = async () => {
    const { master } = await tree.pids();
    const started = (await workersStartedAt(master))!;
    while (Date.now() < started + 50) await sleep(10);
  };

  beforeAll(async () => {
    [p1, p2] = [await freePort(), await freePort()];
    tree = await buildDebianTree({
      servers: [
        { host: '127.0.0.2', port: p1 },
        { host: '127.0.0.3', port: p2 },
      ],
      listenPort: await freePort(),
    });
    spec = join(tree.root, 'spec.json');
    state = join(tree.root, 'state');
    await tree.start();
  });

  afterAll(async () => {
    await tree?.remove();
  });

  it('refuses before writing when a master runs the tree but the pid file does not name it', async () => {
    const before = await hashTree(tree.dir);
    const empty = join(tree.root, 'run', 'empty.pid');
    await writeFile(empty, '');
    await writeSpec({ pidFile: empty });
    const { master } = await tree.pids();
    const refused = await failure(adopt());
    expect(refused).toMatch(
      new RegExp(
        `^PID_FILE_NOT_MASTER nginx master ${master} \\(.* -c ${tree.conf}\\) runs ${tree.conf}, but the pid file ${empty} names no running nginx master`,
      ),
    );
    expect(await hashTree(tree.dir)).toEqual(before);
    expect(await readTreeHistory(state)).toEqual([]);
  });

  it('a failed history write leaves the tree as it was and nothing live (the record comes first)', async () => {
    await writeSpec();
    const before = await hashTree(tree.dir);
    const pids = await tree.pids();
    await mkdir(state, { recursive: true });
    await writeFile(join(state, 'versions'), 'not a directory\n');
    expect(await failure(adopt())).not.toBe('did not throw');
    expect(await hashTree(tree.dir)).toEqual(before);
    expect(await tree.pids()).toEqual(pids);
    await rm(join(state, 'versions'));
    expect((await adopt()).version).toBe('v0001');
  });

  it('refuses a state directory without the record while the tree carries marked lines', async () => {
    const elsewhere = join(tree.root, 'other-state');
    const adoptMessage = await failure(adopt({ target: elsewhere }));
    expect(adoptMessage).toMatch(
      new RegExp(
        `^ADOPT_REFUSED ${tree.siteLink}:\\d+ is a line proxyops added \\("# proxyops: alternate of"\\), but ${elsewhere}/adoption.json does not exist: .*--target or nginx.state`,
      ),
    );
    expect(await failure(adopt({ target: elsewhere, undo: true }))).toBe(adoptMessage);
  });

  it('"unchanged" only when nginx loaded what is on disk; else refused with the command that loads it', async () => {
    await pastWorkersStart();
    // What a run with a wrong pid file used to leave: the adopted text written, never reloaded.
    await writeFile(tree.upstreamFile, await readFile(tree.upstreamFile, 'utf8'));
    const { master } = await tree.pids();
    const refused = await failure(adopt());
    expect(refused).toMatch(/^LIVE_NGINX_DIFFERS .* nginx has not loaded them; nothing changed/);
    // The same command as a refusal with a change to make names (one refusal, one command).
    expect(refused).toMatch(
      new RegExp(`Load them with: \\S*nginx -t -p \\S+/ -c ${tree.conf} && kill -HUP ${master}$`),
    );
    await reloadAndConfirm(master, tree.errorLog);
    expect((await adopt()).unchanged).toBe(true);
  });

  it('drift names the command that loads the lines put back, and running it is all the next apply needs', async () => {
    const adopted = await readFile(tree.upstreamFile, 'utf8');
    const { master, workers } = await tree.pids();
    await pastWorkersStart();
    await writeFile(tree.upstreamFile, adopted.replace(/(# proxyops: alternate of)/, '$1 (edited)'));
    const load = new RegExp(`\\S*nginx -t -p \\S+/ -c ${tree.conf} && kill -HUP ${master}`);
    const drift = await failure(adopt());
    expect(drift).toMatch(/^ADOPT_DRIFT .*put them back as proxyops left them .*, then load them with: /);
    const command = drift.match(load)?.[0];
    expect(command).toBeDefined();
    // Put back byte for byte: nginx may have loaded the edit meanwhile, so the apply still refuses,
    // naming the same command.
    await writeFile(tree.upstreamFile, adopted);
    const unloaded = await failure(adopt());
    expect(unloaded).toMatch(/^LIVE_NGINX_DIFFERS /);
    expect(unloaded.match(load)?.[0]).toBe(command);
    await execa('sh', ['-c', command!]);
    for (let i = 0; i < 500 && (await tree.pids()).workers.some((pid) => workers.includes(pid)); i++)
      await sleep(20);
    expect((await adopt()).unchanged).toBe(true);
  });

  it('rolls an adoption back through its record: a reloaded hand edit elsewhere in the same file stays', async () => {
    const adopted = await readFile(tree.upstreamFile, 'utf8');
    const note = '# reviewed 2026-12-06\n';
    await writeFile(tree.upstreamFile, `${note}${adopted}`);
    await reloadAndConfirm((await tree.pids()).master, tree.errorLog);
    const report = await rollbackAdopted((await readAdoptedSpec(spec, state))!);
    expect(report.version).toBe('v0002');
    const original = adopted
      .split(/(?<=\n)/)
      .filter((line) => !line.includes('# proxyops: alternate of'))
      .join('');
    expect(await readFile(tree.upstreamFile, 'utf8')).toBe(`${note}${original}`);
    await expect(readFile(join(state, 'adoption.json'))).rejects.toThrow(/ENOENT/);
    // And the rollback of the rollback adopts again, the note kept.
    expect((await rollbackAdopted((await readAdoptedSpec(spec, state))!)).version).toBe('v0003');
    expect(await readFile(tree.upstreamFile, 'utf8')).toBe(`${note}${adopted}`);
  });

  it('undo of a block put back by hand (and reloaded) drops the record instead of calling it drift', async () => {
    const adopted = await readFile(tree.upstreamFile, 'utf8');
    const original = adopted
      .split(/(?<=\n)/)
      .filter((line) => !line.includes('# proxyops: alternate of'))
      .join('');
    await writeFile(tree.upstreamFile, original);
    await reloadAndConfirm((await tree.pids()).master, tree.errorLog);
    const report = await adopt({ undo: true });
    expect(report).toMatchObject({ unchanged: true, recordDropped: true });
    await expect(readFile(join(state, 'adoption.json'))).rejects.toThrow(/ENOENT/);
    expect(await readFile(tree.upstreamFile, 'utf8')).toBe(original);
  });
});
