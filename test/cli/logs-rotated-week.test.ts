// A week of Debian-rotated nginx logs (access.log, access.log.1, access.log.2.gz … access.log.7.gz in
// stock `combined`), read the way a newcomer reads them from docs/access-logs.md: the built CLI, run
// in the logs' directory with the names logrotate gives them.
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli, type CliResult, type CliRunOptions } from '../support/built-cli.js';
import { reachableCheckout } from '../support/checkout-copy.js';
import { timeLocal } from '../support/report-sample-logs.mjs';

/** The built CLI in `cwd` (see runBuiltCli for the options). */
const proxyops = (cwd: string, args: string[], options: CliRunOptions = {}): Promise<CliResult> =>
  runBuiltCli(args, { ...options, cwd });

/** Exit 2 and exactly one `proxyops: …` line on stderr, equal to `line`; nothing on stdout. */
function expectOneLine(result: CliResult, line: string): void {
  expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
    code: 2,
    stderr: `proxyops: ${line}\n`,
    stdout: '',
  });
}

/** One day of `combined` lines, one a minute (a 502 now and then), starting at `startMs`. */
function dayOfCombined(startMs: number): string {
  let text = '';
  for (let minute = 0; minute < 1440; minute++) {
    const status = minute % 97 === 0 ? 502 : 200;
    text +=
      `10.0.0.${minute % 200} - - [${timeLocal(startMs + minute * 60_000 + 7_000)}] ` +
      `"GET /api/items/${minute % 7} HTTP/1.1" ${status} 512 "-" "Mozilla/5.0 (X11; Linux x86_64)"\n`;
  }
  return text;
}

/** logrotate's names for day `age` (0 = today): access.log, access.log.1, then access.log.N.gz. */
const rotatedName = (age: number) =>
  age === 0 ? 'access.log' : age === 1 ? 'access.log.1' : `access.log.${age}.gz`;
const WEEK = [0, 1, 2, 3, 4, 5, 6, 7].map(rotatedName);

describe('logs stats / logs merge on a week of Debian-rotated combined logs (CLI)', () => {
  let dir: string;
  /** The same logs just after the next rotation: access.log empty, yesterday's in access.log.1. */
  let rotated: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-rotated-week-'));
    rotated = join(dir, 'just-rotated');
    await mkdir(rotated);
    const first = Date.UTC(2026, 10, 18);
    for (let age = 0; age < 8; age++) {
      const text = dayOfCombined(first + (7 - age) * 86_400_000);
      const name = rotatedName(age);
      await writeFile(join(dir, name), name.endsWith('.gz') ? gzipSync(text) : text);
    }
    await writeFile(join(rotated, 'access.log'), '');
    await copyFile(join(dir, 'access.log'), join(rotated, 'access.log.1'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('logs merge of two states over eight days prints the --json of one run, timeline included', async () => {
    const a = await proxyops(dir, ['logs', 'stats', ...WEEK.slice(0, 2), '--state-out', 'a.state.json']);
    const b = await proxyops(dir, ['logs', 'stats', ...WEEK.slice(2), '--state-out', 'b.state.json']);
    expect([a.code, b.code]).toEqual([0, 0]);
    const merged = await proxyops(dir, ['logs', 'merge', 'a.state.json', 'b.state.json', '--json']);
    const one = await proxyops(dir, ['logs', 'stats', ...WEEK, '--json']);
    expect(merged.code).toBe(0);
    expect(one.code).toBe(0);
    // 11 520 minutes: past the 10 000 timeline points, so both double the interval to 2 minutes.
    type Timeline = { timeline: { intervalSeconds: number; points: unknown[] } };
    for (const { timeline } of [JSON.parse(one.stdout), JSON.parse(merged.stdout)] as Timeline[])
      expect([timeline.intervalSeconds, timeline.points.length]).toEqual([120, 5760]);
    // Compared as a boolean: a failing diff of two 3 MB texts takes minutes to print.
    expect(merged.stdout === one.stdout).toBe(true);
    // The table says the same.
    const mergedTable = await proxyops(dir, ['logs', 'merge', 'a.state.json', 'b.state.json']);
    const oneTable = await proxyops(dir, ['logs', 'stats', ...WEEK]);
    expect(mergedTable.stdout).toContain('per 120s (last 10 of 5760)');
    expect(mergedTable.stdout === oneTable.stdout).toBe(true);
  });

  it('right after logrotate, an empty access.log first: the format comes from access.log.1', async () => {
    const run = await proxyops(rotated, ['logs', 'stats', 'access.log', 'access.log.1', '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      'proxyops: format combined (detected: parses 50 of the first 50 lines of access.log.1)\n',
    );
    const summary = JSON.parse(run.stdout) as {
      format: string;
      records: number;
      malformed: { count: number };
    };
    expect([summary.format, summary.records, summary.malformed.count]).toEqual(['combined', 1440, 0]);
  });

  it('a named format that parses no line: the closest format counts the lines it parses', async () => {
    const run = await proxyops(dir, ['logs', 'stats', 'access.log.1', '--preset', 'proxyops']);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^proxyops: access\.log\.1: 1440 of 1440 lines do not match format proxyops; closest known format: combined \(parses 50 of the first 50 lines\), select it with --preset combined; a line not matched: "10\.0\.0\.0 - - /,
    );
    // As it says: that preset parses every line.
    const combined = await proxyops(dir, ['logs', 'stats', 'access.log.1', '--preset', 'combined', '--json']);
    expect(combined.code).toBe(0);
    expect((JSON.parse(combined.stdout) as { records: number }).records).toBe(1440);
    // Over several inputs it names the input of the first line not matched, and how many others.
    const several = await proxyops(dir, ['logs', 'stats', 'access.log', 'access.log.1', '--preset', 'json']);
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(
      /^proxyops: access\.log and 1 other input: 2880 of 2880 lines do not match format json; closest known format: combined \(parses 50 of the first 50 lines of access\.log\)/,
    );
  });

  it('no file given and an empty standard input (cron, CI, an empty $(ls …)) is an error', async () => {
    const devNull = await proxyops(dir, ['logs', 'stats'], { stdinFile: '/dev/null' });
    expectOneLine(
      devNull,
      'no log files given and standard input is empty: give log files, or - to read standard input explicitly',
    );
    const pipe = await proxyops(dir, ['logs', 'stats', '--json', '--fail-if', '5xx>0'], { stdin: '' });
    expect(pipe.code).toBe(2);
    // A pipe with lines is still read without "-".
    const lines = await readFile(join(dir, 'access.log.1'), 'latin1');
    const piped = await proxyops(dir, ['logs', 'stats', '--json'], { stdin: lines });
    expect(piped.code).toBe(0);
    expect((JSON.parse(piped.stdout) as { records: number }).records).toBe(1440);
  });

  it('an explicit - may be empty, and an empty access.log beside logs with lines is read', async () => {
    const dash = await proxyops(dir, ['logs', 'stats', '-', '--preset', 'combined', '--json'], {
      stdinFile: '/dev/null',
    });
    expect(dash.code).toBe(0);
    expect((JSON.parse(dash.stdout) as { lines: number }).lines).toBe(0);
    const undetected = await proxyops(dir, ['logs', 'stats', '-'], { stdinFile: '/dev/null' });
    expect(undetected.code).toBe(0);
    expect(undetected.stderr).toBe('proxyops: format proxyops (default: no lines to detect a format from)\n');
    const withRotated = await proxyops(rotated, ['logs', 'stats', 'access.log.1', 'access.log', '--json']);
    expect(withRotated.code).toBe(0);
    expect((JSON.parse(withRotated.stdout) as { records: number }).records).toBe(1440);
  });

  it('inputs that are all empty files are an error naming the rotated files to give', async () => {
    expectOneLine(
      await proxyops(rotated, ['logs', 'stats', 'access.log']),
      'access.log: the input is empty, nothing to count; a log just rotated has its lines in the rotated files: give them too (access.log.1, access.log.2.gz …)',
    );
    await writeFile(join(rotated, 'other.log'), '');
    expectOneLine(
      await proxyops(rotated, ['logs', 'stats', 'access.log', 'other.log', '--preset', 'combined']),
      'access.log, other.log: all 2 inputs are empty, nothing to count; a log just rotated has its lines in the rotated files: give them too (access.log.1, access.log.2.gz …)',
    );
    // A state for a pipe (how --host reads each host) is one part of a total: it may be empty.
    const part = await proxyops(rotated, [
      'logs',
      'stats',
      'access.log',
      '--preset',
      'combined',
      '--state-out',
      '-',
    ]);
    expect(part.code).toBe(0);
    expect((JSON.parse(part.stdout) as { lines: number }).lines).toBe(0);
  });

  it('a missing file says so in words, with the rotated names, on one line', async () => {
    expectOneLine(
      await proxyops(dir, ['logs', 'stats', 'nope.log']),
      'cannot read nope.log: no such file; check the path (rotated logs are nope.log.1, nope.log.2.gz …)',
    );
    // logrotate's delaycompress: access.log.2 is access.log.2.gz.
    expectOneLine(
      await proxyops(dir, ['logs', 'stats', 'access.log', 'access.log.2']),
      'cannot read access.log.2: no such file; access.log.2.gz exists: give that name',
    );
    expectOneLine(
      await proxyops(dir, ['logs', 'stats', 'access.log.9.gz', '--preset', 'combined']),
      'cannot read access.log.9.gz: no such file; check the path (rotated logs are access.log.1, access.log.2.gz …)',
    );
    expectOneLine(
      await proxyops(dir, ['logs', 'stats', 'access.log/x']),
      'cannot read access.log/x: a part of the path is not a directory; check the path',
    );
    // A state file to merge, likewise.
    expectOneLine(
      await proxyops(dir, ['logs', 'merge', 'c.state.json']),
      'cannot read c.state.json: no such file; check the path (a state is written by proxyops logs stats --state-out FILE)',
    );
  });

  it('a log this user may not read: permission denied, and who may', async () => {
    const secret = join(dir, 'secret.log');
    await copyFile(join(dir, 'access.log'), secret);
    await chmod(secret, 0o640);
    // As root, run as nobody (the test directory is root's: readable by nobody once opened up).
    const asRoot = process.getuid?.() === 0;
    if (!asRoot) await chmod(secret, 0);
    else await chmod(dir, 0o755);
    // nobody runs the CLI from a copy it can reach: the checkout may sit below /root (0700).
    const checkout = asRoot ? await reachableCheckout() : undefined;
    try {
      const run = await proxyops(
        '/',
        ['logs', 'stats', secret],
        checkout ? { uid: 65534, cli: checkout.cli } : {},
      );
      expectOneLine(
        run,
        `cannot read ${secret}: permission denied; run as a user who may read it (nginx's logs are usually readable by root and group adm only: sudo, or a member of adm)`,
      );
    } finally {
      await checkout?.remove();
    }
  });
});
