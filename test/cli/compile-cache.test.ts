import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
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

describe.runIf(ownCache)('the Node 20 compile cache after a same-size, same-mtime upgrade', () => {
  let copy: string;
  let dir: string;
  let staleEntry: Buffer;
  const ENTRY = `front.js.${process.version}.${process.arch}.cache`;

  // A copy of dist/cli beside it (so its bundles find dist/ and node_modules as the real ones do).
  beforeAll(async () => {
    copy = await mkdtemp(join(process.cwd(), 'dist', 'cli-copy-'));
    await cp(join(process.cwd(), 'dist', 'cli'), copy, { recursive: true });
    dir = await mkdtemp(join(tmpdir(), 'proxyops-compile-cache-'));
  });
  afterAll(async () => {
    await rm(copy, { recursive: true, force: true });
    await rm(dir, { recursive: true, force: true });
  });

  const version = (cache: string) => {
    const result = spawnSync(process.execPath, [join(copy, 'main.js'), '--version'], {
      encoding: 'utf8',
      env: { ...process.env, NODE_COMPILE_CACHE: cache },
    });
    expect(result.stderr).toBe('');
    return result.stdout.trim();
  };
  const keyOf = (data: Buffer) => data.subarray(0, data.indexOf(10) + 1);

  it('runs the new code, not the old bytecode, and replaces the entry', async () => {
    const cache = join(dir, 'upgraded');
    // npm installs every file with this mtime.
    const npmTime = new Date('1985-10-26T08:15:00Z');
    const front = join(copy, 'front.js');
    await utimes(front, npmTime, npmTime);
    const old = version(cache);
    expect(old).toMatch(/^\d+\.\d+\.\d+/);
    staleEntry = await readFile(join(cache, ENTRY));
    // What an upgrade installs: a front of the same size and mtime, and the build's bundles.json.
    const before = await stat(front);
    const source = await readFile(front, 'utf8');
    expect(source.split(JSON.stringify(old)).length).toBe(2);
    const bumped = old.replace(/\d$/, (digit) => String((Number(digit) + 1) % 10));
    const upgraded = source.replace(JSON.stringify(old), JSON.stringify(bumped));
    await writeFile(front, upgraded);
    await utimes(front, npmTime, npmTime);
    expect((await stat(front)).size).toBe(before.size);
    expect((await stat(front)).mtimeMs).toBe(before.mtimeMs);
    const manifest = JSON.parse(await readFile(join(copy, 'bundles.json'), 'utf8'));
    manifest['front.js'].sha256 = createHash('sha256').update(upgraded).digest('hex');
    await writeFile(join(copy, 'bundles.json'), JSON.stringify(manifest));

    expect(version(cache)).toBe(bumped);
    const replaced = await readFile(join(cache, ENTRY));
    expect(keyOf(replaced).toString()).toContain(manifest['front.js'].sha256);
    expect(version(cache)).toBe(bumped);
  });

  /** The old version's bytecode under the new version's key, planted by `plant` in a fresh cache. */
  const planted = async (name: string, plant: (entry: string, forged: Buffer) => Promise<void>) => {
    const cache = join(dir, name);
    await mkdir(cache, { mode: 0o700 });
    const current = await readFile(join(dir, 'upgraded', ENTRY));
    const forged = Buffer.concat([keyOf(current), staleEntry.subarray(keyOf(staleEntry).length)]);
    await plant(join(cache, ENTRY), forged);
    return join(cache, ENTRY);
  };

  it('would run a planted entry of this user (so the refusals below can fail)', async () => {
    const entry = await planted('own', (path, forged) => writeFile(path, forged, { mode: 0o600 }));
    expect(version(join(entry, '..'))).not.toBe(version(join(dir, 'upgraded')));
  });

  it.each([
    ['owned by another user', (path: string) => chown(path, 65534, 0)],
    ['group-writable', (path: string) => chmod(path, 0o620)],
    ['writable by others', (path: string) => chmod(path, 0o602)],
  ])('neither runs nor replaces a planted entry %s', async (name, change) => {
    const entry = await planted(name.replaceAll(' ', '-'), async (path, forged) => {
      await writeFile(path, forged, { mode: 0o600 });
      await change(path);
    });
    const before = await readFile(entry);
    expect(version(join(entry, '..'))).toBe(version(join(dir, 'upgraded')));
    expect(await readFile(entry)).toEqual(before);
  });

  it('neither runs nor replaces an entry that is a symlink', async () => {
    const target = join(dir, 'forged-entry');
    const entry = await planted('symlinked', async (path, forged) => {
      await writeFile(target, forged, { mode: 0o600 });
      await symlink(target, path);
    });
    expect(version(join(entry, '..'))).toBe(version(join(dir, 'upgraded')));
    expect((await lstat(entry)).isSymbolicLink()).toBe(true);
  });

  it('does not cache a bundle that bundles.json does not list at its size', async () => {
    const cache = join(dir, 'unlisted');
    await rm(join(copy, 'bundles.json'));
    expect(version(cache)).toBe(version(join(dir, 'upgraded')));
    await expect(readdir(cache)).rejects.toThrow(/ENOENT/);
  });
});
