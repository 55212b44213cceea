import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const CLI = join(process.cwd(), 'dist', 'cli', 'main.js');
const LINE =
  '203.0.113.7 - - [25/Nov/2026:08:00:00 +0000] "GET /orders?page=2 HTTP/1.1" 502 612 "-" "curl/8.5.0"\n';
// Node 22.1+ caches with its own module.enableCompileCache; the entry's own cache is Node 20's.
const ownCache = !('enableCompileCache' in createRequire(import.meta.url)('node:module'));

describe.runIf(ownCache)('the CLI entry compile cache (Node 20)', () => {
  let dir: string;
  let log: string;
  let cache: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-compile-cache-'));
    log = join(dir, 'access.log');
    await writeFile(log, LINE);
    cache = join(dir, 'cache');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const run = (env: Record<string, string> = {}) => {
    const result = spawnSync(
      process.execPath,
      [CLI, 'logs', 'stats', '--json', '--preset', 'combined', '--fail-if', '5xx>0', log],
      { encoding: 'utf8', env: { ...process.env, NODE_COMPILE_CACHE: cache, ...env } },
    );
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it('writes an entry per bundle a run loaded, and a run from the entries prints the same', async () => {
    const first = run();
    expect(first.code).toBe(1);
    expect(JSON.parse(first.stdout).status).toEqual({ '502': 1 });
    const entries = (await readdir(cache)).sort();
    expect(entries).toEqual([
      `bundle-proxy-config-logs-logs-stats-command.js.${process.version}.${process.arch}.cache`,
      `front.js.${process.version}.${process.arch}.cache`,
    ]);
    const second = run();
    expect(second).toEqual(first);
  });

  it('an entry V8 refuses (bytecode not its own) is compiled afresh and replaced', async () => {
    const entry = join(cache, `front.js.${process.version}.${process.arch}.cache`);
    const good = await readFile(entry);
    const key = good.subarray(0, good.indexOf(10) + 1);
    await writeFile(entry, Buffer.concat([key, Buffer.alloc(4096, 7)]));
    const result = run();
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).status).toEqual({ '502': 1 });
    const replaced = await readFile(entry);
    expect(replaced.subarray(0, key.length)).toEqual(key);
    expect(replaced.length).toBeGreaterThan(key.length + 4096);
  });

  it('a cache directory others may write to is neither read nor written', async () => {
    await rm(cache, { recursive: true });
    expect(run().code).toBe(1);
    await chmod(cache, 0o777);
    for (const name of await readdir(cache)) await rm(join(cache, name));
    const result = run();
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).status).toEqual({ '502': 1 });
    expect(await readdir(cache)).toEqual([]);
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off', async () => {
    const off = join(dir, 'off');
    const result = run({ NODE_COMPILE_CACHE: off, NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(result.code).toBe(1);
    await expect(readdir(off)).rejects.toThrow(/ENOENT/);
  });
});
