import fc from 'fast-check';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLogsMergeCommand } from '../../../proxy-config/logs/logs-merge-command.js';
import {
  runLogsStatsCommand,
  type LogsStatsCommandOptions,
} from '../../../proxy-config/logs/logs-stats-command.js';
import { seededRandom } from '../../support/seeded-random.js';
import { textLine } from './log-line-corpus.js';

const io = () => {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: { write: (t: string) => (out.stdout += t), isTTY: false },
      stderr: { write: (t: string) => (out.stderr += t) },
      stdin: Object.assign(Readable.from([]), { isTTY: false }),
      env: {},
    },
  };
};

async function stats(inputs: string[], options: LogsStatsCommandOptions) {
  const { out, io: streams } = io();
  const code = await runLogsStatsCommand(inputs, { preset: 'proxyops', ...options }, streams);
  return { code, ...out };
}

async function merge(states: string[], options: LogsStatsCommandOptions) {
  const { out, io: streams } = io();
  const code = await runLogsMergeCommand(states, options, streams).catch((error: unknown) => {
    out.stderr += (error as Error).message;
    return (error as { code?: string }).code === 'STATE_INCOMPATIBLE' ? 2 : -1;
  });
  return { code, ...out };
}

const pad = (n: number) => String(n).padStart(2, '0');
const sec = (ms: number) => (ms / 1000).toFixed(3);

/**
 * A log over three hours with what makes merging hard: every status family, 499s, proxy-made 5xx,
 * retries across upstream groups (`a, b : c`), "-" times, 0 ms, times from 0 ms to 70 s (exact and
 * approximate percentile buckets), 5xx paths, malformed lines, and lines out of time order.
 */
function generateLog(lines: number, seed: number): string {
  const r = seededRandom(seed);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    if (r.int(0, 200) === 0) {
      out.push(`\x16\x03\x01 garbage ${i}`);
      continue;
    }
    const minute = Math.min(179, Math.floor((i / lines) * 180) + r.int(-3, 3) * (r.int(0, 20) === 0 ? 1 : 0));
    const t = Math.max(0, minute);
    const time = `21/Nov/2026:${pad(10 + Math.floor(t / 60))}:${pad(t % 60)}:${pad(r.int(0, 59))} +0000`;
    const kind = r.int(0, 19);
    const rt = [0, 1, 3, 12, 45, 150, 197, 250, 800, 2_500, 70_000][r.int(0, 10)]! + r.int(0, 40);
    const path = ['/users', '/orders/7', '/graphql', '/static/app.js'][r.int(0, 3)]!;
    if (kind === 0)
      out.push(
        textLine({
          status: '413',
          rt: sec(rt),
          uct: '-',
          uht: '-',
          urt: '-',
          ua: '-',
          us: '-',
          request: `POST ${path} HTTP/1.1`,
        }),
      );
    else if (kind === 1)
      out.push(textLine({ status: '499', time, rt: sec(rt), uct: sec(1), uht: '-', urt: sec(rt), us: '-' }));
    else if (kind === 2)
      out.push(
        textLine({
          status: '502',
          time,
          rt: sec(rt),
          uct: `-, ${sec(r.int(0, 3))} : -`,
          uht: '-, - : -',
          urt: `${sec(r.int(0, 2))}, ${sec(rt)} : 0.000`,
          ua: '10.0.1.11:8080, 10.0.1.12:8080 : unix:/run/app.sock',
          us: '502, 502 : 502',
          request: `GET ${path} HTTP/1.1`,
        }),
      );
    else if (kind === 3)
      out.push(
        textLine({
          status: '200',
          time,
          rt: sec(rt + 3),
          uct: `-, ${sec(1)}`,
          uht: `-, ${sec(rt)}`,
          urt: `${sec(0)}, ${sec(rt + 2)}`,
          ua: '10.0.1.13:8080, 10.0.1.11:8080',
          us: '502, 200',
        }),
      );
    else {
      const status = ['200', '200', '200', '201', '304', '404', '500', '503'][r.int(0, 7)]!;
      out.push(
        textLine({
          status,
          time,
          rt: sec(rt),
          uct: sec(r.int(0, 2)),
          uht: sec(Math.max(0, rt - 1)),
          urt: sec(rt),
          ua: `10.0.1.${10 + r.int(1, 3)}:8080`,
          us: status,
          request: `GET ${path}?q=${i} HTTP/1.1`,
        }),
      );
    }
  }
  return out.join('\n') + '\n';
}

/** The parts of a --json document that do not depend on how the input was cut into files. */
function cutIndependent(json: string): unknown {
  const doc = JSON.parse(json) as Record<string, unknown> & { malformed: { count: number } };
  return { ...doc, inputs: null, malformed: doc.malformed.count };
}

describe('logs merge', () => {
  let dir: string;
  let whole: string;
  let wholeJson: string;
  let text: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-logs-merge-'));
    text = generateLog(6_000, 27);
    whole = join(dir, 'whole.log');
    await writeFile(whole, text);
    const run = await stats([whole], { json: true });
    expect(run.code).toBe(0);
    wholeJson = run.stdout;
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('of the states of a log cut at random lines into 2 to 20 files prints what one run over them prints, byte for byte', async () => {
    const lines = text.slice(0, -1).split('\n');
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: lines.length - 1 }), { minLength: 1, maxLength: 19 }),
        async (cuts) => {
          const at = [0, ...cuts.sort((a, b) => a - b), lines.length];
          const sub = join(dir, `round-${round++}`);
          const parts: string[] = [];
          for (let k = 0; k + 1 < at.length; k++) {
            const part = `${sub}-part-${k}.log`;
            await writeFile(part, lines.slice(at[k], at[k + 1]).join('\n') + '\n');
            parts.push(part);
          }
          const states: string[] = [];
          for (const part of parts) {
            const state = `${part}.state.json`;
            const run = await stats([part], { json: true, stateOut: state });
            expect(run.code).toBe(0);
            states.push(state);
          }
          const one = await stats(parts, { json: true });
          const merged = await merge(states, { json: true });
          expect(merged.code).toBe(0);
          // Byte for byte what one run over the same files prints: counts, percentiles, timeline.
          expect(merged.stdout).toBe(one.stdout);
          // And the same counts, percentiles and timeline as one run over the uncut log.
          expect(cutIndependent(merged.stdout)).toEqual(cutIndependent(wholeJson));
          const doc = JSON.parse(merged.stdout) as { records: number; timeline: { points: unknown[] } };
          expect(doc.records).toBeGreaterThan(5_000);
          expect(doc.timeline.points.length).toBeGreaterThan(150);
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it('of its own output state is the same run again (a state reads back exactly)', async () => {
    const first = join(dir, 'first.state.json');
    const second = join(dir, 'second.state.json');
    await stats([whole], { json: true, stateOut: first });
    const again = await merge([first], { json: true, stateOut: second });
    expect(again.stdout).toBe(wholeJson);
    expect(await readFile(second, 'utf8')).toBe(await readFile(first, 'utf8'));
    const doc = JSON.parse(await readFile(first, 'utf8')) as {
      schema: string;
      requestTime: { scale: number; count: number; zeroCount: number; positive: Array<[number, number]> };
    };
    expect(doc.schema).toBe('proxyops.logs.state/1');
    expect(doc.requestTime.scale).toBe(7);
    expect(doc.requestTime.zeroCount).toBeGreaterThan(0);
    const inBuckets = doc.requestTime.positive.reduce((n, [, c]) => n + c, doc.requestTime.zeroCount);
    expect(inBuckets).toBe(doc.requestTime.count);
  });

  it('--state-out - prints the state in place of the report, the same as the file; alone on stdout', async () => {
    const file = join(dir, 'to-file.state.json');
    await stats([whole], { stateOut: file });
    const piped = await stats([whole], { stateOut: '-' });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(await readFile(file, 'utf8'));
    // The state holds the malformed samples: no note of them beside it.
    expect(piped.stderr).not.toMatch(/malformed/);
    const both = await stats([whole], { stateOut: '-', json: true }).catch((error: Error) => error);
    expect((both as Error).message).toMatch(/give only one of --json, --ndjson, --prom, --state-out -/);
  });

  it('applies --fail-if and --prom to the merged counts', async () => {
    const state = join(dir, 'fail.state.json');
    await stats([whole], { json: true, stateOut: state });
    const merged = await merge([state, state], { failIf: ['records>6000'], prom: true });
    expect(merged.code).toBe(1);
    expect(merged.stderr).toMatch(/--fail-if holds: records>6000 \(records=\d+\)/);
    const lines = (JSON.parse(wholeJson) as { lines: number }).lines;
    expect(merged.stdout).toContain(`proxyops_log_lines_total ${2 * lines}\n`);
  });

  it("of a state holding a damaged .gz: the damage is in the merged --json and state and said on stderr; the exit code is --fail-if's", async () => {
    const gz = gzipSync(text);
    const cut = join(dir, 'cut.log.gz');
    await writeFile(cut, gz.subarray(0, Math.floor(gz.length / 2)));
    const cutState = join(dir, 'cut.state.json');
    const run = await stats([cut], { json: true, stateOut: cutState });
    expect(run.code).toBe(2);
    const { damaged } = JSON.parse(run.stdout) as { damaged: Array<{ input: string; lines: number }> };
    expect(damaged).toEqual([expect.objectContaining({ input: cut, offset: Math.floor(gz.length / 2) })]);
    expect(damaged[0]!.lines).toBeGreaterThan(1_000);
    const said = `proxyops: ${cut} is damaged at byte ${Math.floor(gz.length / 2)} of ${Math.floor(gz.length / 2)} (unexpected end of file): its ${damaged[0]!.lines} line(s) before that are counted, the rest could not be read\n`;
    // Said once, last (after the note of the malformed lines).
    const saidOnce = (stderr: string) =>
      stderr.endsWith(said) && stderr.indexOf(' is damaged ') === stderr.lastIndexOf(' is damaged ');
    expect(saidOnce(run.stderr)).toBe(true);
    const stored = JSON.parse(await readFile(cutState, 'utf8')) as { damaged: unknown };
    expect(stored.damaged).toEqual(damaged);

    // A state written before states kept the damage (no such key) reads as whole, as it was written.
    const wholeState = join(dir, 'whole-for-damage.state.json');
    await stats([whole], { json: true, stateOut: wholeState });
    const old = JSON.parse(await readFile(wholeState, 'utf8')) as Record<string, unknown>;
    expect(old.damaged).toEqual([]);
    delete old.damaged;
    const oldState = join(dir, 'old.state.json');
    await writeFile(oldState, JSON.stringify(old));
    const alone = await merge([oldState], { json: true });
    expect(alone.code).toBe(0);
    expect(alone.stdout).toBe(wholeJson);

    // Merged with it: what one run over both prints, byte for byte, and the same line; the run that
    // read the damaged file exits 2, the merge of kept states does not say it again with its exit code.
    const merged = await merge([cutState, oldState], { json: true });
    const one = await stats([cut, whole], { json: true });
    expect(merged.code).toBe(0);
    expect(one.code).toBe(2);
    expect(merged.stdout).toBe(one.stdout);
    expect(merged.stderr).toBe(one.stderr);
    expect(saidOnce(merged.stderr)).toBe(true);
    // A state of that merge keeps it too; a --fail-if that holds gives 1, as it would without the damage
    // (a week's roll-up with one damaged day still alerts).
    const again = join(dir, 'again.state.json');
    const table = await merge([oldState, cutState], { stateOut: again, failIf: ['records>1'] });
    expect(table.code).toBe(1);
    expect(table.stderr).toContain('--fail-if holds: records>1');
    expect(saidOnce(table.stderr)).toBe(true);
    expect((JSON.parse(await readFile(again, 'utf8')) as { damaged: unknown }).damaged).toEqual(damaged);

    const bad = join(dir, 'bad-damage.state.json');
    await writeFile(bad, JSON.stringify({ ...old, damaged: [{ input: cut, offset: -1 }] }));
    const refused = await merge([bad], { json: true });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `${bad}: not a proxyops state file (bad damaged input {"input":"${cut}","offset":-1})`,
    );
  });

  it('refuses states of another format, another version, or no state at all, in one line with a hint', async () => {
    const proxyops = join(dir, 'p.state.json');
    const combined = join(dir, 'c.state.json');
    const log = join(dir, 'combined.log');
    await writeFile(log, '10.0.0.1 - - [21/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 5 "-" "ua"\n');
    await stats([whole], { json: true, stateOut: proxyops });
    await stats([log], { json: true, stateOut: combined, preset: 'combined' });
    const mixed = await merge([proxyops, combined], { json: true });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toBe(
      `${combined}: format combined differs from ${proxyops}'s (proxyops); states merge only within one log format: merge each format's states on their own`,
    );
    const future = join(dir, 'future.state.json');
    const doc = JSON.parse(await readFile(proxyops, 'utf8')) as Record<string, unknown>;
    await writeFile(future, JSON.stringify({ ...doc, schema: 'proxyops.logs.state/2' }));
    const newer = await merge([proxyops, future], { json: true });
    expect(newer.code).toBe(2);
    expect(newer.stderr).toMatch(
      /state version proxyops\.logs\.state\/2 is not read by this proxyops .*write the states with/,
    );
    expect(newer.stderr).not.toContain('\n');
    const notState = await merge([whole], { json: true });
    expect(notState.code).toBe(2);
    expect(notState.stderr).toMatch(/whole\.log: not a proxyops state file \(not JSON\); write one with/);
  });
});
