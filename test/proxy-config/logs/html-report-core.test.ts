import { renderStatsTable } from '../../../proxy-config/core/logs/render-stats-table.js';
import { describe, expect, it } from 'vitest';
import { addToHistogram } from '../../../proxy-config/core/logs/histogram.js';
import { formatTimeTick, linearTicks, timeTicks } from '../../../proxy-config/core/logs/html/scales.js';
import { fitLabel, textWidth } from '../../../proxy-config/core/logs/html/svg-text.js';
import {
  bucketTimeline,
  coveredSeconds,
  MAX_BUCKETS,
} from '../../../proxy-config/core/logs/html/time-buckets.js';
import { REPORT_UPSTREAMS } from '../../../proxy-config/core/logs/html/report-body.js';
import { renderStatsHtml } from '../../../proxy-config/core/logs/render-stats-html.js';
import {
  createStatsState,
  createTimelinePoint,
  createUpstreamState,
  MAX_PATHS,
  MAX_TIMELINE_POINTS,
  MAX_UPSTREAMS,
} from '../../../proxy-config/core/logs/stats-state.js';
import { summarizeStats, type TimelineSummary } from '../../../proxy-config/core/logs/summarize-stats.js';

/** A format that logs every field the report draws (proxyops'). */
const EVERY_FIELD = { time: true, requestTime: true, upstream: true, headerTime: true, path: true };

const point = (time: string, records: number, fivexx = 0): TimelineSummary => ({
  time,
  records,
  '1xx': 0,
  '2xx': records - fivexx,
  '3xx': 0,
  '4xx': 0,
  '5xx': fivexx,
  other: 0,
  '499': 0,
  proxy5xx: fivexx,
  requestTime: { count: 0, p50: null, p90: null, p99: null, max: null },
});

describe('the report timeline', () => {
  it('keeps one bucket per interval when they fit, gaps as zeros', () => {
    const b = bucketTimeline(
      [point('2026-11-21T10:00:00.000Z', 5, 1), point('2026-11-21T10:03:00.000Z', 7)],
      60,
    )!;
    expect(b.stepMs).toBe(60_000);
    expect(b.series.records).toEqual([5, 0, 0, 7]);
    expect(b.series['5xx']).toEqual([1, 0, 0, 0]);
  });

  it('regroups a long timeline into at most MAX_BUCKETS buckets, counts adding up exactly', () => {
    const points = Array.from({ length: 10_000 }, (_, i) =>
      point(new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), i % 7, i % 3),
    );
    const b = bucketTimeline(points, 60)!;
    expect(b.count).toBeLessThanOrEqual(MAX_BUCKETS + 1);
    expect(b.stepMs % 60_000).toBe(0);
    const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);
    expect(sum(b.series.records)).toBe(sum(points.map((p) => p.records)));
    expect(sum(b.series.proxy5xx)).toBe(sum(points.map((p) => p.proxy5xx ?? 0)));
  });

  it('knows how much of its first and last buckets the log covers, so rates do not dip at the ends', () => {
    const t0 = Date.UTC(2026, 10, 21, 0, 7);
    const points = Array.from({ length: 1001 }, (_, i) => point(new Date(t0 + i * 60_000).toISOString(), 60));
    const b = bucketTimeline(points, 60)!;
    expect(b.stepMs).toBe(3 * 60_000);
    expect(b.startMs).toBe(Date.UTC(2026, 10, 21, 0, 6));
    expect(coveredSeconds(b, 0)).toBe(120); // 00:07 to 00:09
    expect(coveredSeconds(b, 1)).toBe(180);
    expect(b.series.records[0]! / coveredSeconds(b, 0)).toBe(1);
    const last = b.count - 1;
    expect(b.series.records[last]! / coveredSeconds(b, last)).toBe(1);
    // The log's first and last seconds narrow the ends further: 00:07:30 to 16:47:14 inclusive.
    const r = bucketTimeline(points, 60, {
      first: '2026-11-21T00:07:30.000Z',
      last: '2026-11-21T16:47:14.000Z',
    })!;
    expect(coveredSeconds(r, 0)).toBe(90);
    expect(coveredSeconds(r, r.count - 1)).toBe(
      (Date.UTC(2026, 10, 21, 16, 47, 15) - (r.startMs + (r.count - 1) * r.stepMs)) / 1000,
    );
  });

  it('stays bounded for two points years apart', () => {
    const b = bucketTimeline(
      [point('2020-01-01T00:00:00.000Z', 1), point('2026-01-01T00:00:00.000Z', 2)],
      60,
    )!;
    expect(b.count).toBeLessThanOrEqual(MAX_BUCKETS + 1);
    expect(b.series.records.filter(Boolean)).toEqual([1, 2]);
  });
});

describe('axis ticks', () => {
  it('puts time labels on UTC multiples of a readable step, never closer than their width', () => {
    for (const [span, width] of [
      [60_000, 880],
      [3_600_000, 880],
      [86_400_000 * 3, 880],
      [86_400_000 * 400, 300],
      [5_000, 120],
    ] as const) {
      const start = Date.UTC(2026, 10, 21, 10, 7, 13);
      const { ticks, kind } = timeTicks(start, start + span, width, 11 * 0.62);
      expect(ticks.length).toBeGreaterThanOrEqual(1);
      const px = (t: number) => ((t - start) / span) * width;
      for (let i = 1; i < ticks.length; i++) {
        const gap = px(ticks[i]!) - px(ticks[i - 1]!);
        expect(gap).toBeGreaterThanOrEqual(textWidth(formatTimeTick(ticks[i]!, kind), 11));
      }
    }
    expect(formatTimeTick(Date.UTC(2026, 10, 21, 10, 5, 30), 'time')).toBe('10:05');
    expect(formatTimeTick(Date.UTC(2026, 10, 21, 10, 5, 30), 'date-time')).toBe('11-21 10:05');
  });

  it('gives count axes whole steps that reach the maximum', () => {
    expect(linearTicks(23, 6, true)).toEqual({ top: 25, ticks: [0, 5, 10, 15, 20, 25] });
    expect(linearTicks(1, 8, true).ticks).toEqual([0, 1]);
    expect(linearTicks(0, 5, true)).toEqual({ top: 1, ticks: [0, 1] });
    expect(linearTicks(1.93, 6, false).top).toBeGreaterThanOrEqual(1.93);
  });

  it('cuts a label to its room with an ellipsis', () => {
    const cut = fitLabel('unix:/run/services/billing-and-invoicing-worker-pool-5.sock', 120, 11);
    expect(cut.endsWith('…')).toBe(true);
    expect(textWidth(cut, 11)).toBeLessThanOrEqual(120);
    expect(fitLabel('10.0.2.1:80', 120, 11)).toBe('10.0.2.1:80');
  });
});

describe('the report cap on upstreams', () => {
  it('draws the busiest REPORT_UPSTREAMS and counts the rest', () => {
    const state = createStatsState(EVERY_FIELD);
    for (let i = 0; i < REPORT_UPSTREAMS + 10; i++) {
      const up = createUpstreamState();
      up.requests = 1000 - i;
      addToHistogram(up.response, 20);
      state.upstreams.set(`10.0.3.${i}:80`, up);
    }
    const html = renderStatsHtml(summarizeStats(state, { format: 'proxyops', inputs: ['a.log'] }));
    expect(html.match(/data-row="/g)).toHaveLength(REPORT_UPSTREAMS + 1);
    expect(html).toContain(`data-row="10.0.3.${REPORT_UPSTREAMS - 1}:80"`);
    expect(html).not.toContain(`data-row="10.0.3.${REPORT_UPSTREAMS}:80"`);
    const rest = Array.from({ length: 10 }, (_, i) => 1000 - REPORT_UPSTREAMS - i).reduce((a, b) => a + b, 0);
    expect(html).toContain(`10 more addresses (${rest.toLocaleString('en-US')} attempts) are not drawn`);
  });
});

describe('a format with upstreams but no $upstream_header_time (ingress-nginx)', () => {
  it('draws the upstreams, and says who made each 5xx is unknown rather than counting them nginx-made', () => {
    const state = createStatsState({
      time: true,
      requestTime: true,
      upstream: true,
      headerTime: false,
      path: true,
    });
    const up = createUpstreamState();
    up.requests = 10;
    up.status5xx = 4;
    up.proxyGenerated = 4; // every attempt looks header-less when the header time is not logged
    addToHistogram(up.response, 20);
    state.upstreams.set('10.244.0.10:8080', up);
    state.retriedRequests = 2;
    const summary = summarizeStats(state, { format: 'ingress-nginx', inputs: ['a.log'] });
    // --json and the table say unknown per upstream too, never the header-less count.
    expect(summary.upstreams[0]!.proxyGenerated).toBeNull();
    expect(renderStatsTable(summary, { color: false })).toContain('proxy-made unknown');
    const html = renderStatsHtml(summary);
    expect(html).toContain('<dd data-metric="retried">2</dd>');
    expect(html).toContain('<dd data-metric="proxy5xx" title="needs $upstream_header_time">unknown</dd>');
    expect(html).toContain('<td data-col="5xx made by nginx">unknown</td>');
    expect(html).toContain('data-row="10.244.0.10:8080"');
    expect(html).toContain('5xx 4 (who made them: unknown)');
    expect(html).not.toContain('class="s-proxy5xx" x=');
  });
});

describe('a report of a damaged .gz input', () => {
  it('says at the top that its counts are partial, with each damage as the run said it; nothing when whole', () => {
    const state = createStatsState(EVERY_FIELD);
    const whole = renderStatsHtml(summarizeStats(state, { format: 'proxyops', inputs: ['a.log.gz'] }));
    expect(whole).not.toContain('id="damaged"');
    state.damaged = Array.from({ length: 12 }, (_, i) => ({
      input: `<b>${i}.log.gz`,
      offset: 6000 + i,
      size: 6000 + i,
      reason: 'unexpected end of file',
      lines: 2087,
    }));
    const html = renderStatsHtml(summarizeStats(state, { format: 'proxyops', inputs: ['a.log.gz'] }));
    const note = /<p class="unknown-note" id="damaged">([^<]*)<\/p>/.exec(html);
    expect(note?.[1]).toMatch(
      /^Partial counts: &#60;b&#62;0\.log\.gz is damaged at byte 6000 of 6000 \(unexpected end of file\): its 2087 line\(s\) before that are counted, the rest could not be read; /,
    );
    expect(note?.[1]).toContain('&#60;b&#62;9.log.gz is damaged at byte 6009');
    expect(note?.[1]).not.toContain('10.log.gz');
    expect(note?.[1]).toMatch(/; and 2 more damaged\.$/);
    // Before the headline numbers it qualifies.
    expect(html.indexOf('id="damaged"')).toBeLessThan(html.indexOf('id="headline"'));
  });
});

describe('the report size', () => {
  it('stays under 1 MB with every bound of the statistics at its maximum', () => {
    const state = createStatsState(EVERY_FIELD);
    const long = (n: number, c = 'x') => c.repeat(n);
    for (let code = 0; code < 1000; code++) state.status[code] = code + 1;
    for (let i = 0; i < MAX_UPSTREAMS; i++) {
      const up = createUpstreamState();
      up.requests = 1000 - i;
      up.status5xx = 3;
      addToHistogram(up.response, 12 + i);
      state.upstreams.set(`unix:/run/${long(i < 60 ? 100_000 : 200)}-${i}.sock`, up);
    }
    for (let i = 0; i < MAX_PATHS; i++) state.paths5xx.set(`/${long(2000)}/${i}`, i);
    for (let i = 0; i < MAX_TIMELINE_POINTS; i++) {
      const p = createTimelinePoint();
      p.counts[0] = 100;
      p.counts[5] = 3;
      state.timeline.set(Date.UTC(2026, 0, 1) + i * 60_000, p);
    }
    state.firstTimeMs = Date.UTC(2026, 0, 1);
    state.lastTimeMs = state.firstTimeMs + MAX_TIMELINE_POINTS * 60_000;
    state.records = 1e9;
    for (let i = 0; i < 5; i++)
      state.malformedSamples.push({ input: long(4000, 'i'), line: i, text: long(1_000_000, '<') });
    const summary = summarizeStats(state, {
      format: 'proxyops',
      inputs: Array.from({ length: 50 }, () => long(4000, '/')),
    });
    const html = renderStatsHtml(summary);
    expect(Buffer.byteLength(html)).toBeLessThan(1_000_000);
  });
});
