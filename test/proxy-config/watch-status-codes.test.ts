import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLastLines } from '../../proxy-config/shell/logs/read-log-since.js';
import { readStatusesBefore } from '../../proxy-config/config/watch-status-codes.js';

const line = (status: number) =>
  `127.0.0.1 - - [22/Nov/2026:03:00:00 +0000] "GET /x HTTP/1.1" ${status} 5 "-" "curl"\n`;

describe('readStatusesBefore', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-watch-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('counts the whole lines before the offset, not what was written after it', async () => {
    const log = join(dir, 'small.log');
    await writeFile(log, line(200).repeat(3) + line(502));
    const offset = (await stat(log)).size;
    await writeFile(log, line(200).repeat(3) + line(502) + line(404), { flag: 'w' });
    const before = await readStatusesBefore(log, offset);
    expect(before.byStatus).toEqual({ '200': 3, '502': 1 });
  });

  it('reads at most the last 1000 lines of a long log, never a cut first line', async () => {
    const log = join(dir, 'long.log');
    await writeFile(log, line(503).repeat(5000) + line(200).repeat(1000));
    const before = await readStatusesBefore(log, (await stat(log)).size);
    expect(before).toMatchObject({ total: 1000, byStatus: { '200': 1000 } });
  });

  it('reads the last 1000 lines however long they are, as the docs say (the deploy reads the same)', async () => {
    // 400-byte lines: 1000 of them are 400 KB, more than a fixed 256 KB window held.
    const long = (status: number) =>
      line(status).replace('/x', `/${'a'.repeat(400 - line(status).length + 1)}`);
    expect(long(200)).toHaveLength(400);
    const log = join(dir, 'wide.log');
    await writeFile(log, long(502).repeat(500) + long(200).repeat(1000));
    const before = await readStatusesBefore(log, (await stat(log)).size);
    expect(before).toMatchObject({ total: 1000, byStatus: { '200': 1000 } });
    expect(await readLastLines(log, (await stat(log)).size)).toBe(long(200).repeat(1000));
    const short = join(dir, 'short.log');
    await writeFile(short, long(502).repeat(10) + long(200).repeat(20));
    expect((await readStatusesBefore(short, (await stat(short)).size)).total).toBe(30);
  });

  it('finds nothing in a missing log', async () => {
    expect((await readStatusesBefore(join(dir, 'none.log'), 0)).total).toBe(0);
  });
});
