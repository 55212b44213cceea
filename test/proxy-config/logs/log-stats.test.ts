import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createLineFilter, parseStatusFilter } from '../../../proxy-config/core/logs/log-filter.js';
import {
  createLogReaderKit,
  presetFormat,
  type LogFormatSpec,
} from '../../../proxy-config/core/logs/log-format-presets.js';
import { createLogScan, scanLogText } from '../../../proxy-config/core/logs/scan-log-text.js';
import {
  createStatsState,
  mergeStatsState,
  MAX_PATHS,
  MAX_TIMELINE_POINTS,
} from '../../../proxy-config/core/logs/stats-state.js';
import { summarizeStats } from '../../../proxy-config/core/logs/summarize-stats.js';
import type { LogFilter } from '../../../proxy-config/core/logs/log-filter.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/logs/${name}`, import.meta.url), 'latin1');

function stats(spec: LogFormatSpec, texts: string[], filter: LogFilter = {}, intervalMs = 60_000) {
  const kit = createLogReaderKit(spec);
  const state = createStatsState(kit.capabilities, intervalMs);
  const scan = createLogScan(kit, state, 'in.log', createLineFilter(filter, kit.capabilities, kit.escape));
  for (const text of texts) scanLogText(scan, text);
  return { state, summary: summarizeStats(state, { format: spec.name, inputs: ['in.log'] }) };
}

/** A proxyops text line. */
function line(
  status: string,
  us: string,
  uht: string,
  ua: string,
  opts: { path?: string; rt?: string; time?: string } = {},
) {
  const n = us === '-' ? 1 : us.split(', ').length;
  const fill = (v: string) => Array(n).fill(v).join(', ');
  return (
    `10.0.0.9 - - [${opts.time ?? '21/Nov/2026:10:00:01 +0000'}] "GET ${opts.path ?? '/p'} HTTP/1.1" ${status} 5 "-" "ua" ` +
    `rt=${opts.rt ?? '0.010'} uct="${uht === '-' && ua !== '-' ? fill('0.001') : ua === '-' ? '-' : fill('0.001')}" uht="${uht}" ` +
    `urt="${ua === '-' ? '-' : fill('0.002')}" ua="${ua}" us="${us}" rid="x" ui="-"\n`
  );
}

describe('the proxy-generated rule', () => {
  const spec = presetFormat('proxyops');
  it('counts by the final attempt header time, or no upstream, never by $upstream_status', () => {
    const { summary } = stats(spec, [
      line('502', '502', '0.002', '10.0.0.1:80'), // the app said 502
      line('502', '502', '-', '10.0.0.1:80'), // refused: the proxy made it
      line('504', '504', '-', '10.0.0.1:80'), // timed out: the proxy made it
      line('200', '502, 200', '-, 0.003', '10.0.0.2:80, 10.0.0.1:80'), // retried, the app answered
      line('413', '-', '-', '-'), // no upstream at all
      line('499', '-', '-', '10.0.0.1:80'), // the client left first
    ]);
    expect(summary.proxyGenerated).toEqual({ total: 4, status: { '413': 1, '499': 1, '502': 1, '504': 1 } });
    expect(summary.upstreamReturned).toEqual({ total: 2, status: { '200': 1, '502': 1 } });
    expect(summary.upstreamStatus).toEqual({ '-': 2, '200': 1, '502': 2, '504': 1 });
    expect(summary.ratios.proxy5xx).toBeCloseTo(2 / 6, 5);
    expect(summary.retriedRequests).toBe(1);
    const a = summary.upstreams.find((u) => u.address === '10.0.0.1:80')!;
    expect(a).toMatchObject({ requests: 5, final: 5, status5xx: 3, proxyGenerated: 2, retries: 0 });
    const b = summary.upstreams.find((u) => u.address === '10.0.0.2:80')!;
    expect(b).toMatchObject({ requests: 1, final: 0, status5xx: 1, proxyGenerated: 1, retries: 1 });
    expect(summary.clientClosed).toMatchObject({ count: 1, noUpstream: 0 });
  });

  it("tells who answered from the header time alone: the nginx blog's upstream_time logs no address or status", () => {
    const blog = (status: string, uct: string, uht: string, urt: string) =>
      `10.0.0.9 - - [21/Nov/2026:10:00:01 +0000] "POST /p HTTP/1.1" ${status} 5 "-" "ua"` +
      `rt=0.010 uct="${uct}" uht="${uht}" urt="${urt}"\n`;
    const lines = [
      blog('200', '0.001', '0.002', '0.002'), // the app answered
      blog('502', '0.001', '0.002', '0.002'), // the app itself said 502
      blog('200', '-, 0.001', '-, 0.002', '0.000, 0.002'), // refused, retried, the app answered
      blog('502', '-', '-', '0.000'), // refused: the proxy made it
      blog('504', '0.001', '-', '1.001'), // timed out: the proxy made it
      blog('413', '-', '-', '-'), // no upstream at all
      blog('499', '0.000', '-', '0.300'), // the client left first
    ];
    for (const spec of [presetFormat('upstream-time'), presetFormat('upstream-time-spaced')]) {
      const text = spec.name === 'upstream-time' ? lines : lines.map((l) => l.replace('"rt=', '" rt='));
      const { summary } = stats(spec, text);
      expect(summary.malformed.count).toBe(0);
      expect(summary.proxyGenerated).toEqual({
        total: 4,
        status: { '413': 1, '499': 1, '502': 1, '504': 1 },
      });
      expect(summary.upstreamReturned).toEqual({ total: 3, status: { '200': 2, '502': 1 } });
      // No address or status logged: per-upstream figures stay unknown, never a count of "-".
      expect(summary.upstreamStatus).toBeNull();
      expect(summary.retriedRequests).toBeNull();
      expect(summary.upstreams).toEqual([]);
    }
  });

  it('is unknown (null) for a format without $upstream_header_time', () => {
    const { summary } = stats(presetFormat('combined'), [fixture('combined.log')]);
    expect(summary.proxyGenerated).toBeNull();
    expect(summary.upstreamReturned).toBeNull();
    expect(summary.upstreamStatus).toBeNull();
  });
});

describe('malformed lines', () => {
  it('are counted and sampled with line numbers, and never stop the run', () => {
    const { summary } = stats(presetFormat('combined'), [fixture('combined.log')]);
    expect(summary.lines).toBe(7);
    expect(summary.records).toBe(6);
    expect(summary.malformed.count).toBe(1);
    expect(summary.malformed.samples).toEqual([
      {
        input: 'in.log',
        line: 7,
        text: '192.0.2.1 - - [21/Nov/2026:10:01:06 +0100] "GET /truncated HTTP/1.1" 200',
      },
    ]);
    expect(summary.status).toEqual({ '009': 1, '200': 1, '201': 1, '400': 2, '404': 1 });
    expect(summary.statusClass.other).toBe(1);
  });

  it('keep only the first five samples, and cut long lines', () => {
    const bad = Array.from({ length: 8 }, (_, i) => `garbage ${i} ${'x'.repeat(i === 0 ? 500 : 1)}`).join(
      '\n',
    );
    const { summary } = stats(presetFormat('combined'), [bad]);
    expect(summary.malformed.count).toBe(8);
    expect(summary.malformed.samples.map((s) => s.line)).toEqual([1, 2, 3, 4, 5]);
    expect(summary.malformed.samples[0]!.text.length).toBeLessThan(310);
  });
});

describe('a run of lines missing a delimiter', () => {
  it('does not confuse the scan memo: the good lines after them still match', () => {
    const good = fixture('combined.log').split('\n')[0]! + '\n';
    const bad = '1.2.3.4 - - [21/Nov/2026:10:00:01 +0100] no quotes at all\n'.repeat(5000);
    const { summary } = stats(presetFormat('combined'), [good + bad + good + bad.slice(0, 58 * 3) + good]);
    expect(summary.records).toBe(3);
    expect(summary.malformed.count).toBe(5003);
    expect(summary.malformed.samples[0]!.line).toBe(2);
  });
});

describe('preset: JSON lines', () => {
  it('reads nginx-named keys, numbers or strings, lists, and counts the rest as malformed', () => {
    const { summary } = stats(presetFormat('json'), [fixture('lines.jsonl')]);
    expect(summary.records).toBe(3);
    expect(summary.malformed.count).toBe(2);
    expect(summary.malformed.samples.map((s) => s.line)).toEqual([4, 5]);
    expect(summary.status).toEqual({ '200': 1, '413': 1, '502': 1 });
    expect(summary.proxyGenerated).toEqual({ total: 2, status: { '413': 1, '502': 1 } });
    expect(summary.retriedRequests).toBe(1);
    expect(summary.topPaths5xx.paths).toEqual([{ path: '/b', count: 1 }]);
    expect(summary.timeRange).toEqual({
      first: '2026-11-21T09:00:01.000Z',
      last: '2026-11-21T09:00:03.000Z',
    });
  });

  it('counts a 5xx line without a request key, with no path; --path does not match it', () => {
    const text = '{"status":500}\n{"status":502,"request":"GET /b HTTP/1.1"}\n';
    const { summary } = stats(presetFormat('json'), [text]);
    expect(summary.records).toBe(2);
    expect(summary.status).toEqual({ '500': 1, '502': 1 });
    expect(summary.topPaths5xx.paths).toEqual([{ path: '/b', count: 1 }]);
    const filtered = stats(presetFormat('json'), [text], { path: '/' }).summary;
    expect([filtered.records, filtered.filtered]).toEqual([1, 1]);
    expect(stats(presetFormat('json'), [text], { path: '~.' }).summary.records).toBe(1);
  });
});

describe('statistics', () => {
  const spec = presetFormat('proxyops');
  const text = [
    line('200', '200', '0.002', '10.0.0.1:80', { rt: '0.100', time: '21/Nov/2026:10:00:01 +0000' }),
    line('500', '500', '0.002', '10.0.0.1:80', { path: '/api/a?x=1', time: '21/Nov/2026:10:00:30 +0000' }),
    line('503', '503', '0.002', '10.0.0.2:80', { path: '/api/a', time: '21/Nov/2026:10:01:00 +0000' }),
    line('502', '502', '-', '10.0.0.2:80', {
      path: '/api/b',
      rt: '2.500',
      time: '21/Nov/2026:10:02:10 +0000',
    }),
    line('499', '-', '-', '10.0.0.1:80', { rt: '1.250', time: '21/Nov/2026:10:02:11 +0000' }),
  ].join('');

  it('counts per minute, top paths by 5xx and request-time percentiles', () => {
    const { summary } = stats(spec, [text]);
    expect(summary.timeline.points.map((p) => [p.time, p.records, p['5xx'], p['499'], p.proxy5xx])).toEqual([
      ['2026-11-21T10:00:00.000Z', 2, 1, 0, 0],
      ['2026-11-21T10:01:00.000Z', 1, 1, 0, 0],
      ['2026-11-21T10:02:00.000Z', 2, 1, 1, 1],
    ]);
    expect(summary.topPaths5xx.paths).toEqual([
      { path: '/api/a', count: 2 },
      { path: '/api/b', count: 1 },
    ]);
    // Sorted: 0.010 0.010 0.100 1.250 2.500; nearest rank.
    expect(summary.latency.requestTime).toEqual({ count: 5, p50: 0.1, p90: 2.5, p99: 2.5, max: 2.5 });
    expect(summary.clientClosed.requestTime!.p50).toBe(1.25);
    expect(summary.ratios['5xx']).toBe(0.6);
  });

  it('merging states of parts equals one pass over the whole', () => {
    const big = Array.from({ length: 40 }, (_, i) => (i % 7 === 3 ? 'junk\n' : text)).join('');
    const whole = stats(spec, [big]).summary;
    const lines = big
      .split('\n')
      .slice(0, -1)
      .map((l) => l + '\n');
    const parts = [lines.slice(0, 50), lines.slice(50, 77), lines.slice(77)].map(
      (p) => stats(spec, [p.join('')]).state,
    );
    const merged = createStatsState(parts[0]!.capabilities);
    let offset = 0;
    for (const part of parts) {
      mergeStatsState(merged, part, offset);
      offset += part.lines;
    }
    expect(summarizeStats(merged, { format: 'proxyops', inputs: ['in.log'] })).toEqual(whole);
  });

  it('filters by time, status, path prefix or ~regex, and upstream', () => {
    const at = (s: string) => Date.parse(s);
    const run = (filter: LogFilter) => stats(spec, [text], filter).summary;
    expect(run({ sinceMs: at('2026-11-21T10:01:00Z') }).records).toBe(3);
    expect(run({ untilMs: at('2026-11-21T10:01:00Z') }).records).toBe(2);
    expect(run({ status: parseStatusFilter('5xx,499') }).records).toBe(4);
    expect(run({ status: parseStatusFilter('500-502') }).status).toEqual({ '500': 1, '502': 1 });
    expect(run({ path: '/api/' }).records).toBe(3);
    expect(run({ path: '~^/api/[b]$' }).records).toBe(1);
    expect(run({ upstream: ['10.0.0.2'] }).records).toBe(2);
    expect(run({ upstream: ['10.0.0.2:80'] }).filtered).toBe(3);
    expect(() => parseStatusFilter('5x')).toThrow(/--status/);
    expect(() => run({ path: '~(' })).toThrow(/--path/);
  });

  it('stays bounded: paths pruned with an error bound, timeline coarsened', () => {
    const many = Array.from({ length: MAX_PATHS + 10 }, (_, i) =>
      line('500', '500', '0.001', '10.0.0.1:80', { path: `/u/${i}` }),
    ).join('');
    const { state, summary } = stats(spec, [many]);
    expect(state.paths5xx.size).toBeLessThanOrEqual(MAX_PATHS);
    expect(summary.topPaths5xx.maxError).toBe(1);
    const kit = createLogReaderKit(spec);
    const tl = createStatsState(kit.capabilities, 1000);
    const scan = createLogScan(kit, tl, 'x');
    const base = Date.UTC(2026, 10, 21);
    let lines = '';
    for (let i = 0; i < MAX_TIMELINE_POINTS + 5; i++) {
      const d = new Date(base + i * 1000);
      const t = `21/Nov/2026:${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}:${String(d.getUTCSeconds()).padStart(2, '0')} +0000`;
      lines += line('200', '200', '0.001', '10.0.0.1:80', { time: t });
    }
    scanLogText(scan, lines);
    expect(tl.timeline.size).toBeLessThanOrEqual(MAX_TIMELINE_POINTS);
    expect(tl.intervalMs).toBe(2000);
    const sum = [...tl.timeline.values()].reduce((n, p) => n + p.counts[0]!, 0);
    expect(sum).toBe(MAX_TIMELINE_POINTS + 5);
  });
});
