import { readFile, writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDebianTree, linesOutsideBlock, snapshotOutsideBlock, type DebianTree } from './debian-tree.js';
import { freePort } from './ports.js';
import { startUpstreamApp, type UpstreamApp } from './upstream-app.js';

describe('the hand-written Debian tree builder', () => {
  let tree: DebianTree;
  let app: UpstreamApp;
  let port: number;

  beforeAll(async () => {
    app = await startUpstreamApp();
    port = await freePort();
    tree = await buildDebianTree({ servers: [{ host: '127.0.0.1', port: app.port }], listenPort: port });
  });
  afterAll(async () => {
    await tree?.remove();
    await app?.close();
  });

  it('is a config nginx runs, workers as nobody, logging the upstream in the copied format', async () => {
    await execa('nginx', ['-t', '-p', tree.prefix, '-c', tree.conf, '-e', tree.errorLog]);
    await tree.start();
    const { workers } = await tree.pids();
    expect(workers.length).toBe(2);
    // A worker just forked may not have dropped to nobody yet: wait for it.
    for (const pid of workers)
      await expect.poll(() => readFile(`/proc/${pid}/status`, 'utf8')).toMatch(/^Uid:\s+65534\s/m);
    expect((await fetch(`http://127.0.0.1:${port}/echo`)).status).toBe(200);
    await expect
      .poll(() => readFile(tree.accessLog, 'utf8').catch(() => ''), { timeout: 10_000 })
      .toMatch(new RegExp(`"GET /echo HTTP/1.1" 200 .* ua="127.0.0.1:${app.port}"`));
  });

  it('tells an edit inside the upstream block from one outside it', async () => {
    const before = await snapshotOutsideBlock(tree);
    const text = await readFile(tree.upstreamFile, 'utf8');
    const inside = text.replace('keepalive 16;', 'keepalive 16;\n\tserver 127.0.0.9:1 down;');
    await writeFile(tree.upstreamFile, inside);
    expect(await snapshotOutsideBlock(tree)).toEqual(before);
    await writeFile(
      tree.upstreamFile,
      inside.replace('location / {', 'location /x { return 204; }\n    location / {'),
    );
    expect((await snapshotOutsideBlock(tree)).outside).not.toEqual(before.outside);
    await writeFile(tree.otherUpstreamFile, `${await readFile(tree.otherUpstreamFile, 'utf8')}# touched\n`);
    expect((await snapshotOutsideBlock(tree)).hashes).not.toEqual(before.hashes);
    expect(linesOutsideBlock(text, 'app').some((line) => line.includes('server 127.'))).toBe(false);
  });
});
