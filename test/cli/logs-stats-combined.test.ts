// A newcomer's first run: `proxyops logs stats` from docs/access-logs.md on a week of stock nginx
// `combined` logs (no $upstream_addr, no $request_time), through the built CLI on real files. What the
// format cannot tell is unknown in every output, never a zero.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli, type CliResult } from '../support/built-cli.js';
import { timeLocal } from '../support/report-sample-logs.mjs';

const proxyops = (args: string[]): Promise<CliResult> => runBuiltCli(args, { noStdin: true });

/** nginx's built-in `combined`: one request a minute for a week (10 080 minutes), some 499s and 502s. */
function weekOfCombined(): { text: string; lines: number; c499: number } {
  const start = Date.UTC(2026, 10, 14, 0, 0, 1);
  const out: string[] = [];
  let c499 = 0;
  for (let i = 0; i < 7 * 24 * 60; i++) {
    const status = i % 10 === 3 ? 499 : i % 25 === 7 ? 502 : 200;
    if (status === 499) c499++;
    out.push(
      `203.0.113.${i % 200} - - [${timeLocal(start + i * 60_000)}] "GET /api/items/${i % 40}?q=1 HTTP/1.1" ${status} ${status === 499 ? 0 : 512} "-" "Mozilla/5.0 (X11; Linux x86_64)"`,
    );
  }
  return { text: out.join('\n') + '\n', lines: out.length, c499 };
}

describe('logs stats on a week of stock nginx combined logs', () => {
  let dir: string;
  let log: string;
  let week: ReturnType<typeof weekOfCombined>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-combined-'));
    log = join(dir, 'access.log');
    week = weekOfCombined();
    await writeFile(log, week.text);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('the table says unknown for 499s without an upstream attempt, not a count', async () => {
    const { code, stdout } = await proxyops(['logs', 'stats', log]);
    expect(code).toBe(0);
    expect(stdout).toContain(`${week.c499.toLocaleString('en-US')} (`);
    expect(stdout).toContain('without an upstream attempt unknown');
    expect(stdout).not.toMatch(/without an upstream attempt \d/);
    expect(stdout).toContain('  upstream connect time   unknown (the log format has no $upstream_addr)');
    expect(stdout).toContain('request time (s)\nunknown (the log format has no $request_time)');
  });

  it('--json gives null for what a combined log cannot know, in the totals and in every timeline point', async () => {
    const { code, stdout } = await proxyops(['logs', 'stats', log, '--json']);
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.format).toBe('combined');
    expect(doc.clientClosed.count).toBe(week.c499);
    expect(doc.clientClosed.noUpstream).toBeNull();
    expect(doc.retriedRequests).toBeNull();
    expect(doc.upstreamStatus).toBeNull();
    expect(doc.ratios.proxy5xx).toBeNull();
    expect(doc.latency.requestTime).toBeNull();
    expect(doc.clientClosed.requestTime).toBeNull();
    expect(doc.clientClosed.upstreamConnectTime).toBeNull();
    expect(doc.clientClosed.upstreamResponseTime).toBeNull();
    expect(doc.timeline.points.length).toBeGreaterThan(0);
    for (const point of doc.timeline.points) {
      expect(point.proxy5xx).toBeNull();
      expect(point.requestTime).toBeNull();
    }
  });

  it('--ndjson writes proxy5xx as null on every line', async () => {
    const { code, stdout } = await proxyops(['logs', 'stats', log, '--ndjson']);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(JSON.parse(line)).toHaveProperty('proxy5xx', null);
      expect(JSON.parse(line)).toHaveProperty('requestTime', null);
    }
  });

  it('--prom and --prom-textfile write the same documented metrics, without those the format cannot give', async () => {
    const textfile = join(dir, 'proxyops.prom');
    const { code, stdout } = await proxyops(['logs', 'stats', log, '--prom', '--prom-textfile', textfile]);
    expect(code).toBe(0);
    const file = await readFile(textfile, 'utf8');
    expect(stdout).toBe(file);
    // The names of the docs' metric table, so its PromQL works on either.
    expect(stdout).toContain(`proxyops_log_lines_total ${week.lines}\n`);
    expect(stdout).toContain(
      `proxyops_log_requests_total{status="499",status_class="4xx",origin="unknown"} ${week.c499}\n`,
    );
    expect(stdout).toContain('# TYPE proxyops_log_newest_record_timestamp_seconds gauge');
    // Not the names --prom used to write.
    for (const old of ['records_total', 'responses_total', 'client_closed_total', 'request_time_seconds'])
      expect(stdout).not.toContain(`proxyops_log_${old}`);
    // No $request_time: no histogram of zeros; no $upstream_addr: no upstream metric, not even a header.
    expect(stdout).not.toContain('proxyops_log_request_duration_seconds');
    expect(stdout).not.toContain('proxyops_log_upstream_');
    const check = await execa('promtool', ['check', 'metrics'], { input: stdout, reject: false });
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.exitCode).toBe(0);
  });

  it('--upstream is refused before reading, with what to do instead', async () => {
    const { code, stdout, stderr } = await proxyops(['logs', 'stats', log, '--upstream', '10.0.1.11']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^proxyops: --upstream: the log format has no \$upstream_addr/m);
    expect(stderr).toContain('leave out --upstream, or log $upstream_addr');
    expect(stderr).toContain("log_format proxyops '");
    expect(stderr).toContain('$upstream_addr');
  });

  it('an --interval widened past the 10 000-point cap is said once on stderr, not with --quiet', async () => {
    const json = await proxyops(['logs', 'stats', log, '--interval', '1m', '--json']);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc.timeline.intervalSeconds).toBe(120);
    const notes = json.stderr.split('\n').filter((line) => line.includes('--interval'));
    expect(notes).toEqual([
      'proxyops: --interval 1m: these logs span more than 10000 such intervals, so the timeline is per 120 s; narrow the time with --since/--until or give a wider --interval',
    ]);
    const quiet = await proxyops(['logs', 'stats', log, '--interval', '1m', '--json', '--quiet']);
    expect(quiet.stderr).not.toContain('--interval');
    expect(JSON.parse(quiet.stdout).timeline.intervalSeconds).toBe(120);
    // The interval nobody asked for is widened as before, without a note.
    const unasked = await proxyops(['logs', 'stats', log, '--json']);
    expect(unasked.stderr).not.toContain('--interval');
    // One the cap leaves alone is not mentioned.
    const wide = await proxyops(['logs', 'stats', log, '--interval', '5m', '--json']);
    expect(JSON.parse(wide.stdout).timeline.intervalSeconds).toBe(300);
    expect(wide.stderr).not.toContain('--interval');
  });

  it('logs merge of two combined states keeps the unknown figures unknown', async () => {
    const a = join(dir, 'a.state.json');
    const b = join(dir, 'b.state.json');
    expect((await proxyops(['logs', 'stats', log, '--state-out', a, '--quiet'])).code).toBe(0);
    expect((await proxyops(['logs', 'stats', log, '--state-out', b, '--quiet'])).code).toBe(0);
    const merged = await proxyops(['logs', 'merge', a, b, '--json']);
    expect(merged.code).toBe(0);
    const doc = JSON.parse(merged.stdout);
    expect(doc.clientClosed.count).toBe(2 * week.c499);
    expect(doc.clientClosed.noUpstream).toBeNull();
    expect(doc.retriedRequests).toBeNull();
    expect(doc.latency.requestTime).toBeNull();
    for (const point of doc.timeline.points) expect(point.proxy5xx).toBeNull();
    const table = await proxyops(['logs', 'merge', a, b]);
    expect(table.stdout).toContain('without an upstream attempt unknown');
    const prom = await proxyops(['logs', 'merge', a, b, '--prom']);
    expect(prom.stdout).toContain(`proxyops_log_lines_total ${2 * week.lines}\n`);
    expect(prom.stdout).not.toContain('proxyops_log_request_duration_seconds');
    expect(prom.stdout).not.toContain('proxyops_log_upstream_');
  });
});
