import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presetFormat } from '../../../proxy-config/core/logs/log-format-presets.js';
import { renderStatsHtml } from '../../../proxy-config/core/logs/render-stats-html.js';
import type { StatsSummary } from '../../../proxy-config/core/logs/summarize-stats.js';
import { computeLogStats } from '../../../proxy-config/logs/logs-stats.js';
import { combinedLog, incidentLog, type SampleCounts } from '../../support/report-sample-logs.mjs';
import {
  background,
  hoverDetail,
  labelsOutsideCharts,
  launchChromium,
  openWatched,
  overlappingLabels,
  type WatchedPage,
} from './report-browser.js';

let dir: string;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'proxyops-html-'));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Writes the log, computes its statistics, writes the report and opens it. */
async function report(name: string, text: string, preset: string) {
  const log = join(dir, `${name}.log`);
  await writeFile(log, text);
  const summary = await computeLogStats({ inputs: [log], spec: presetFormat(preset) });
  const html = join(dir, `${name}.html`);
  await writeFile(html, renderStatsHtml(summary));
  return {
    summary,
    html,
    open: (scheme: 'light' | 'dark' = 'light') => openWatched(browser, pathToFileURL(html).href, scheme),
  };
}

const HOSTILE = '</script><script>window.bad = 1</script><!-- <img src=x onerror="bad()">';
const count = (n: number) => n.toLocaleString('en-US');
const legendOf = (w: WatchedPage, id: string) =>
  w.page.$$eval(`#${id} li`, (lis) => lis.map((li) => li.textContent));

describe('the HTML report of an incident across 40 upstreams, in Chromium', () => {
  let summary: StatsSummary;
  let counts: SampleCounts;
  let w: WatchedPage;
  let html: string;

  beforeAll(async () => {
    const log = incidentLog({ upstreams: 40 });
    counts = log.counts;
    // A hostile line: it must stay text in the page (and is the one malformed line).
    const made = await report('incident', `${log.text}${HOSTILE}\n`, 'proxyops');
    summary = made.summary;
    html = made.html;
    w = await made.open();
  }, 60_000);

  it('loads with no console error and no request to anything outside the file', () => {
    expect(summary.upstreams.length).toBe(40);
    expect(w.errors).toEqual([]);
    expect(w.requests).toEqual([pathToFileURL(html).href]);
  });

  it('shows the headline numbers, with 5xx split by who made them', async () => {
    const metric = (name: string) => w.page.locator(`[data-metric="${name}"]`).textContent();
    expect(await metric('records')).toBe(count(counts.records));
    expect(await metric('5xx')).toMatch(new RegExp(`^${count(counts.s5xx)} `));
    expect(await metric('proxy5xx')).toBe(count(counts.proxy5xx));
    expect(await metric('upstream5xx')).toBe(count(counts.s5xx - counts.proxy5xx));
    expect(await metric('499')).toMatch(new RegExp(`^${count(counts.s499)} `));
    expect(await metric('p99')).toBe(`${summary.latency.requestTime!.p99!.toFixed(3)} s`);
  });

  it('names every series in a legend, and every chart has one', async () => {
    expect(await legendOf(w, 'errors-legend')).toEqual([
      '5xx made by nginx',
      '5xx returned by upstreams',
      '499 client closed',
    ]);
    expect(await legendOf(w, 'upstream-legend')).toEqual([
      'p50',
      'p90',
      'p99',
      '5xx made by nginx',
      '5xx returned by the upstream',
      'retries',
    ]);
    const chartsWithoutLegend = await w.page.$$eval('svg.chart', (svgs) =>
      svgs.filter((svg) => !svg.closest('section')?.querySelector('ul.legend li')).map((svg) => svg.id),
    );
    expect(chartsWithoutLegend).toEqual([]);
  });

  it('draws time axes in UTC with several labels and y axes with a scale', async () => {
    for (const id of ['errors-chart', 'rate-chart']) {
      const ticks = await w.page.$$eval(`#${id} text.tick`, (ts) => ts.map((t) => t.textContent ?? ''));
      const times = ticks.filter((t) => /^\d\d:\d\d$/.test(t));
      expect(times.length).toBeGreaterThanOrEqual(5);
      expect(times[0]).toBe('10:00');
      expect(ticks.filter((t) => /^[\d.]+k?$/.test(t)).length).toBeGreaterThanOrEqual(3);
    }
    expect(await w.page.locator('#errors .axes').textContent()).toContain('UTC');
  });

  it('draws one row per upstream (and all requests) with p50, p90 and p99 at their exact values', async () => {
    const rows = await w.page.$$eval('#upstream-chart [data-row]', (rs) =>
      rs.map((r) => r.getAttribute('data-row')),
    );
    expect(rows).toEqual(['all requests', ...summary.upstreams.map((u) => u.address)]);
    const values = await w.page.$$eval('#upstream-chart [data-quantile="p99"]', (qs) =>
      qs.map((q) => Number(q.getAttribute('data-value'))),
    );
    expect(values).toEqual([
      summary.latency.requestTime!.p99,
      ...summary.upstreams.map((u) => u.responseTime.p99),
    ]);
  });

  it('has no two labels overlapping and none cut off, with 40 upstreams', async () => {
    expect(await overlappingLabels(w.page)).toEqual([]);
    expect(await labelsOutsideCharts(w.page)).toEqual([]);
    // The measure itself finds a label drawn over another (here a copy of a tick label, nudged).
    await w.page.$eval('#rate-chart text.tick', (tick) => {
      const copy = tick.cloneNode(true) as typeof tick;
      copy.setAttribute('x', String(Number(tick.getAttribute('x')) + 3));
      tick.after(copy);
    });
    expect(await overlappingLabels(w.page)).toHaveLength(1);
    await w.page.$eval('#rate-chart text.tick', (tick) => tick.nextElementSibling!.remove());
  });

  it('shows the exact values of what the mouse is over', async () => {
    const points = summary.timeline.points;
    const worst = points.reduce((a, b) => (b.proxy5xx! > a.proxy5xx! ? b : a));
    const index = points.indexOf(worst);
    const detail = await hoverDetail(w.page, `#errors-chart rect.hit >> nth=${index}`);
    expect(detail).toContain(`${worst.time.slice(0, 19).replace('T', ' ')} UTC`);
    expect(detail).toContain(`5xx made by nginx: ${worst.proxy5xx}`);
    expect(detail).toContain(`5xx returned by upstreams: ${worst['5xx'] - worst.proxy5xx!}`);
    expect(detail).toContain(`499 client closed: ${worst['499']}`);
    const first = summary.upstreams[0]!;
    const row = await hoverDetail(w.page, `#upstream-chart rect.hit >> nth=1`);
    expect(row).toContain(
      `${first.address}: p50 ${first.responseTime.p50!.toFixed(3)} s, p90 ${first.responseTime.p90!.toFixed(3)} s, p99 ${first.responseTime.p99!.toFixed(3)} s`,
    );
    expect(row).toContain(`5xx made by nginx ${count(first.proxyGenerated!)}`);
    expect(row).toContain(`retries ${count(first.retries)}`);
  });

  it('lists the top paths by 5xx with their counts, log text kept as text', async () => {
    expect(await w.page.locator('[data-metric="malformed"]').textContent()).toBe('1');
    expect(await w.page.locator('.samples li code').nth(1).textContent()).toBe(HOSTILE);
    const names = await w.page.$$eval('#paths-chart text.name', (ts) => ts.map((t) => t.textContent));
    expect(names).toEqual(summary.topPaths5xx.paths.map((p) => p.path));
    const bars = await w.page.$$eval('#paths-chart rect[data-count]', (rs) =>
      rs.map((r) => Number(r.getAttribute('data-count'))),
    );
    expect(bars).toEqual(summary.topPaths5xx.paths.map((p) => p.count));
    expect(await w.page.evaluate(() => typeof (globalThis as { bad?: unknown }).bad)).toBe('undefined');
  });

  it('reads in a dark scheme too', async () => {
    const dark = await openWatched(browser, pathToFileURL(html).href, 'dark');
    expect(await background(w.page)).toBe('rgb(255, 255, 255)');
    expect(await background(dark.page)).toBe('rgb(21, 23, 26)');
    expect(dark.errors).toEqual([]);
    await dark.page.close();
  });
});

describe('the HTML report of a combined log (no upstream, no timing), in Chromium', () => {
  let summary: StatsSummary;
  let counts: SampleCounts;
  let w: WatchedPage;

  beforeAll(async () => {
    const log = combinedLog();
    counts = log.counts;
    const made = await report('combined', log.text, 'combined');
    summary = made.summary;
    w = await made.open();
  }, 60_000);

  it('says what the log cannot tell instead of drawing zeros', async () => {
    expect(w.errors).toEqual([]);
    const metric = (name: string) => w.page.locator(`[data-metric="${name}"]`).textContent();
    expect(await metric('records')).toBe(count(counts.records));
    for (const name of ['proxy5xx', 'upstream5xx', 'retried', 'p50', 'p90', 'p99'])
      expect(await metric(name)).toBe('unknown');
    expect(await w.page.locator('#upstreams .unknown-note').textContent()).toContain('$upstream_addr');
    expect(await w.page.locator('#upstreams svg').count()).toBe(0);
    expect(await w.page.locator('[data-quantile]').count()).toBe(0);
    expect(await w.page.locator('#errors .unknown-note').textContent()).toContain('$upstream_header_time');
    expect(await legendOf(w, 'errors-legend')).toEqual(['5xx (who made it: unknown)', '499 client closed']);
    const unknown = await w.page.$$eval('#unknown li', (lis) => lis.map((li) => li.textContent));
    expect(unknown).toHaveLength(summary.unknown.length);
    expect(await w.page.locator('#status-table td[data-col="made by nginx"]').first().textContent()).toBe(
      'unknown',
    );
  });

  it('still draws what it knows: 5xx and 499 over time, the rate, the top paths; labels apart', async () => {
    const bars = await w.page.$$eval('#errors-chart path', (ps) => ps.map((p) => p.getAttribute('class')));
    expect(bars).toEqual(['s-all5xx', 's-499']);
    const detail = await hoverDetail(w.page, '#paths-chart rect.hit');
    expect(detail).toBe(
      `${summary.topPaths5xx.paths[0]!.path}: ${count(summary.topPaths5xx.paths[0]!.count)} 5xx`,
    );
    expect(await overlappingLabels(w.page)).toEqual([]);
    expect(await labelsOutsideCharts(w.page)).toEqual([]);
    expect(w.requests).toHaveLength(1);
  });
});
