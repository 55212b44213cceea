import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presetFormat } from '../../../proxy-config/core/logs/log-format-presets.js';
import { summarizeStats } from '../../../proxy-config/core/logs/summarize-stats.js';
import type { LogDamage } from '../../../proxy-config/core/logs/log-damage.js';
import { computeLogStats } from '../../../proxy-config/logs/logs-stats.js';
import type * as rangeWorker from '../../../proxy-config/shell/logs/log-range-worker.js';

const cli = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));
const spec = presetFormat('proxyops');

/** `count` lines in the proxyops format, statuses and minutes varied by `seed`, every 97th malformed. */
function logLines(count: number, seed: number): string {
  let text = '';
  for (let i = 0; i < count; i++) {
    const n = i + seed;
    if (n % 97 === 0) {
      text += `not a log line ${n}\n`;
      continue;
    }
    const status = n % 13 === 0 ? '502' : n % 7 === 0 ? '404' : '200';
    const minute = String(Math.floor(i / 500) % 60).padStart(2, '0');
    text +=
      `10.0.0.${n % 200} - - [21/Nov/2026:10:${minute}:01 +0000] "GET /api/${n % 31}?q=${'x'.repeat(n % 50)} HTTP/1.1" ` +
      `${status} ${n % 9000} "-" "ua" rt=0.0${n % 90} uct="0.001" uht="${n % 13 === 0 ? '-' : '0.010'}" ` +
      `urt="0.015" ua="10.0.0.${1 + (n % 3)}:80" us="${status}" rid="r${n}" ui="-"\n`;
  }
  return text;
}

/** The proxyops CLI, built, as a separate process: its exit code, stdout and stderr. */
function proxyops(args: string[]) {
  const result = spawnSync(process.execPath, [cli, 'logs', 'stats', ...args], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('.gz inputs and files rotated while read', () => {
  let dir: string;
  let first: string;
  let second: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-gz-rotated-'));
    // ≈ 4 MB each: several reads, and more than one piece when split.
    first = logLines(16_000, 1);
    second = logLines(16_000, 50_000);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a .gz file of several gzip members counts like the plain text they hold, on one thread or more', async () => {
    const plain = join(dir, 'both.log');
    const multi = join(dir, 'both.log.gz');
    await writeFile(plain, first + second);
    // As `cat a.gz b.gz > both.gz`, or a log compressed by pieces.
    await writeFile(multi, Buffer.concat([gzipSync(first), gzipSync(second)]));
    const expected = await computeLogStats({ inputs: [plain], spec, jobs: 1 });
    expect(expected.lines).toBe(32_000);
    const fromGz = await computeLogStats({ inputs: [multi], spec, jobs: 1 });
    expect({ ...fromGz, inputs: [], malformed: fromGz.malformed.count }).toEqual({
      ...expected,
      inputs: [],
      malformed: expected.malformed.count,
    });
    expect(fromGz.malformed.samples.map((s) => [s.input, s.line])).toEqual(
      expected.malformed.samples.map((s) => [multi, s.line]),
    );
    // Built (worker threads for the plain ranges), several .gz files inflating at once, mixed inputs.
    const built = (await import(
      new URL('../../../dist/proxy-config/logs/logs-stats.js', import.meta.url).href
    )) as {
      computeLogStats: typeof computeLogStats;
    };
    const part1 = join(dir, 'one.log.gz');
    const part2 = join(dir, 'two.log');
    await writeFile(part1, gzipSync(first));
    await writeFile(part2, second);
    const mixed = await built.computeLogStats({
      inputs: [part1, multi, part2],
      spec,
      jobs: 3,
      splitMinBytes: 0,
    });
    const sequential = await computeLogStats({ inputs: [part1, multi, part2], spec, jobs: 1 });
    expect(mixed).toEqual(sequential);
    expect(mixed.lines).toBe(64_000);
  });

  it('several .gz files inflated and counted by worker threads merge to exactly the one-thread count', async () => {
    const inputs: string[] = [];
    for (let i = 0; i < 4; i++) {
      const name = join(dir, `access.log.${i + 2}.gz`);
      await writeFile(name, gzipSync(logLines(6_000 + 500 * i, 20_000 * i)));
      inputs.push(name);
    }
    const oneThread = await computeLogStats({ inputs, spec, jobs: 1 });
    expect(oneThread.lines).toBe(4 * 6_000 + 500 * 6);
    const built = (await import(
      new URL('../../../dist/proxy-config/shell/logs/log-range-worker.js', import.meta.url).href
    )) as typeof rangeWorker;
    const builtStats = (await import(
      new URL('../../../dist/proxy-config/logs/logs-stats.js', import.meta.url).href
    )) as { computeLogStats: typeof computeLogStats };
    // The whole run: the main thread and two workers take the files as each finishes one.
    expect(await builtStats.computeLogStats({ inputs, spec, jobs: 3, splitMinBytes: 0 })).toEqual(oneThread);
    // Worker threads alone, no main thread counting: which takes which file is up to timing, but every
    // file is inflated and counted by a worker exactly once, and the merge gives the one-thread count.
    const fds = inputs.map((input) => openSync(input, 'r'));
    try {
      const job = {
        pieces: inputs.map((input, file) => ({
          input,
          file,
          fd: fds[file]!,
          start: 0,
          end: statSync(input).size,
          compressed: true,
        })),
        order: [0, 1, 2, 3],
        next: built.createRangeCounter(),
        read: built.createReadCounter(),
        scanner: true,
        spec,
        filter: {},
        intervalMs: 60_000,
      };
      const results = await Promise.all(await built.startRangeWorkers(job, 2));
      const taken = results.flatMap((result) => result.rangeLines.map(([piece]) => piece));
      expect(taken.sort()).toEqual([0, 1, 2, 3]);
      expect(built.bytesRead(job)).toBe(job.pieces.reduce((sum, piece) => sum + piece.end, 0));
      const { state, damaged } = built.mergeRangeResults(job.pieces, results);
      expect(damaged).toEqual([]);
      expect(summarizeStats(state, { format: spec.name, inputs })).toEqual(oneThread);
    } finally {
      for (const fd of fds) closeSync(fd);
    }
  });

  it('more files than are opened at once: read in batches, counted as one run, progress over them all', async () => {
    const inputs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const text = logLines(900, 1000 * i);
      const name = join(dir, `batch-${i}.log${i % 2 ? '.gz' : ''}`);
      await writeFile(name, i % 2 ? gzipSync(text) : text);
      inputs.push(name);
    }
    const together = await computeLogStats({ inputs, spec, jobs: 1 });
    const seen: Array<[number, number]> = [];
    const batched = await computeLogStats({
      inputs,
      spec,
      jobs: 1,
      openFilesAtOnce: 2,
      onProgress: (read, total) => seen.push([read, total]),
    });
    expect(batched).toEqual(together);
    expect(together.lines).toBe(4500);
    const total = inputs.reduce((sum, input) => sum + statSync(input).size, 0);
    expect(seen.every(([, t]) => t === total)).toBe(true);
    expect(seen.map(([read]) => read)).toEqual([...seen.map(([read]) => read)].sort((a, b) => a - b));
    expect(seen.at(-1)![0]).toBe(total);
  });

  it('a truncated .gz: the lines before the damage are counted, the damage named with file and offset, exit 2', async () => {
    const whole = gzipSync(first);
    const cut = whole.subarray(0, Math.floor(whole.length * 0.6));
    const file = join(dir, 'access.log.2.gz');
    await writeFile(file, cut);
    // What zlib can give back of the cut data: its whole lines are what must be counted.
    const readable = gunzipSync(cut, { finishFlush: constants.Z_SYNC_FLUSH }).toString('latin1');
    const wholeLines = readable.slice(0, readable.lastIndexOf('\n') + 1).split('\n').length - 1;
    expect(wholeLines).toBeGreaterThan(1000);
    expect(wholeLines).toBeLessThan(16_000);

    const { code, stdout, stderr } = proxyops(['--json', '--preset', 'proxyops', file]);
    expect(code).toBe(2);
    const doc = JSON.parse(stdout);
    expect(doc.lines).toBe(wholeLines);
    // The JSON says so itself: a pipeline that keeps only stdout tells a partial count from a whole one.
    const damage = {
      input: file,
      offset: cut.length,
      size: cut.length,
      reason: 'unexpected end of file',
      lines: wholeLines,
    };
    expect(doc.damaged).toEqual([damage]);
    expect(stderr).toContain(
      `proxyops: ${file} is damaged at byte ${cut.length} of ${cut.length} (unexpected end of file): ` +
        `its ${wholeLines} line(s) before that are counted, the rest could not be read\n`,
    );
    // The format is detected from the damaged file too; the table is shown, the exit code is the same.
    const table = proxyops([file]);
    expect(table.code).toBe(2);
    expect(table.stdout.length).toBeGreaterThan(0);
    expect(table.stderr).toContain(`${file} is damaged at byte ${cut.length}`);
    // On two threads (the main one and a worker, either may take the damaged file): the same damage
    // and lines.
    const other = join(dir, 'access.log.1.gz');
    await writeFile(other, gzipSync(second));
    // A whole .gz: the key is there, empty.
    const whole1 = proxyops(['--json', '--preset', 'proxyops', other]);
    expect(whole1.code).toBe(0);
    expect(JSON.parse(whole1.stdout).damaged).toEqual([]);
    const builtStats = (await import(
      new URL('../../../dist/proxy-config/logs/logs-stats.js', import.meta.url).href
    )) as { computeLogStats: typeof computeLogStats };
    const seen: LogDamage[] = [];
    const threads = await builtStats.computeLogStats({
      inputs: [other, file],
      spec,
      jobs: 2,
      splitMinBytes: 0,
      onDamage: (damaged) => seen.push(...damaged),
    });
    expect(threads.lines).toBe(16_000 + wholeLines);
    expect(seen).toEqual([damage]);
    expect(threads.damaged).toEqual([damage]);
    // Used as a library without a damage handler, the damage fails the run.
    await expect(computeLogStats({ inputs: [file], spec })).rejects.toThrow(/is damaged at byte/);
  });

  it('bytes after the last member that are not gzip: every line of the members before them is counted', async () => {
    const member = gzipSync(first + second);
    const file = join(dir, 'access.log.4.gz');
    await writeFile(file, Buffer.concat([member, Buffer.from('not gzip: appended by mistake\n')]));
    // The WebAssembly scanner and the JavaScript readers (a run under scannerMinBytes) alike.
    for (const scannerMinBytes of [0, Infinity]) {
      const seen: LogDamage[] = [];
      const stats = await computeLogStats({
        inputs: [file],
        spec,
        jobs: 1,
        scannerMinBytes,
        onDamage: (damaged) => seen.push(...damaged),
      });
      expect(stats.lines).toBe(32_000);
      expect(seen).toEqual([
        expect.objectContaining({ input: file, reason: 'incorrect header check', lines: 32_000 }),
      ]);
      // Where zlib stopped: within the first bytes after the member (it reads two to check a header).
      expect(seen[0]!.offset).toBeGreaterThanOrEqual(member.length);
      expect(seen[0]!.offset).toBeLessThanOrEqual(member.length + 2);
    }
  });

  it('a .gz file that is not gzip: exit 2 and one line, nothing counted', async () => {
    const file = join(dir, 'access.log.3.gz');
    await writeFile(file, first.slice(0, 5000));
    for (const args of [['--json', '--preset', 'proxyops', file], [file]]) {
      const { code, stdout, stderr } = proxyops(args);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toBe(
        `proxyops: cannot read ${file}: not gzip data (no gzip header), though its name ends in .gz\n`,
      );
    }
  });

  it('files rotated while they are read are read whole as they were when the run began', async () => {
    const log = join(dir, 'rotating.log');
    const old = join(dir, 'rotating.log.1.gz');
    const reset = () => {
      writeFileSync(log, first);
      writeFileSync(old, gzipSync(second));
    };
    reset();
    const before = await computeLogStats({ inputs: [log, old], spec, jobs: 1 });
    expect(before.lines).toBe(32_000);
    // logrotate moves every file one step on and nginx starts a new log: done, synchronously, from the
    // progress hook, which the run calls after each of its reads, so it reads on only after the move.
    const rotateOnce = () => {
      let rotated = false;
      return () => {
        if (rotated) return;
        rotated = true;
        renameSync(old, join(dir, 'rotating.log.2.gz'));
        renameSync(log, join(dir, 'rotating.log.1'));
        writeFileSync(log, logLines(10, 7));
        writeFileSync(old, 'not gzip: a new file where the old one was\n');
      };
    };
    const built = (await import(
      new URL('../../../dist/proxy-config/logs/logs-stats.js', import.meta.url).href
    )) as {
      computeLogStats: typeof computeLogStats;
    };
    reset();
    // One thread: the move comes between two reads of the same file.
    const alone = await computeLogStats({ inputs: [log, old], spec, jobs: 1, onProgress: rotateOnce() });
    expect(alone).toEqual(before);
    expect(readFileSync(log, 'latin1')).toBe(logLines(10, 7));
    reset();
    // Worker threads over byte ranges of the plain file, the main thread on the .gz file as well.
    const threads = await built.computeLogStats({
      inputs: [log, old],
      spec,
      jobs: 2,
      splitMinBytes: 0,
      rangeBytes: 256 * 1024,
      onProgress: rotateOnce(),
    });
    expect(threads).toEqual(before);
    expect(readFileSync(old, 'latin1')).toMatch(/^not gzip/);
  });
});
