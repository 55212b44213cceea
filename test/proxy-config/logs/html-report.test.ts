import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presetFormat } from '../../../proxy-config/core/logs/log-format-presets.js';
import { renderStatsHtml } from '../../../proxy-config/core/logs/render-stats-html.js';
import { computeLogStats } from '../../../proxy-config/logs-stats.js';
import type { StatsSummary } from '../../../proxy-config/core/logs/summarize-stats.js';

const CHROMIUM = '/usr/bin/chromium';

const LINE = (minute: number, status: string, uht: string, ua: string, rt: string) =>
  `10.0.0.9 - - [21/Nov/2026:10:${String(minute).padStart(2, '0')}:01 +0000] "GET /p/${status}?a=<b> HTTP/1.1" ${status} 5 "-" "</script><script>bad()</script>" rt=${rt} ` +
  `uct="0.001" uht="${uht}" urt="${rt}" ua="${ua}" us="${status}" rid="r" ui="-"\n`;

describe('the HTML report, rendered by headless Chromium', () => {
  let dir: string;
  let browser: BrowserContext;
  let summary: StatsSummary;
  let page: Page;
  const requests: string[] = [];

  beforeAll(async () => {
    // No skip: the report must be checked in a real browser; scripts/ensure-system-deps.mjs installs it.
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    dir = await mkdtemp(join(tmpdir(), 'proxyops-html-'));
    let text = '';
    for (let m = 0; m < 6; m++) {
      for (let i = 0; i < 10 + m; i++) text += LINE(m, '200', '0.002', '10.0.0.1:80', `0.0${i % 10}${m}`);
      for (let i = 0; i < m; i++) text += LINE(m, '502', '-', '10.0.0.2:80', '1.500');
      text += LINE(m, '499', '-', '10.0.0.1:80', '3.000');
    }
    const log = join(dir, 'access.log');
    await writeFile(log, text + '</script><script>window.bad = 1</script><!--\n');
    summary = await computeLogStats({ inputs: [log], spec: presetFormat('proxyops') });
    const html = join(dir, 'report.html');
    await writeFile(html, renderStatsHtml(summary));
    // A new, empty profile directory each run.
    browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage();
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(html).href);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows the headline numbers of the summary', async () => {
    const metric = (name: string) => page.locator(`[data-metric="${name}"]`).textContent();
    expect(Number(await metric('records'))).toBe(summary.records);
    expect(Number(await metric('malformed'))).toBe(1);
    expect(Number(await metric('5xx'))).toBe(15);
    expect(Number(await metric('499'))).toBe(6);
    expect(Number(await metric('proxyGenerated'))).toBe(21);
    expect(Number(await metric('p99'))).toBe(summary.latency.requestTime.p99);
    expect(Number(await metric('max'))).toBe(3);
  });

  it('draws status classes over time: one stacked bar per minute, counts adding up', async () => {
    const bars = await page.$$eval('#status-chart rect', (rects) =>
      rects.map((r) => [
        r.getAttribute('data-class'),
        Number(r.getAttribute('data-count')),
        Number(r.getAttribute('height')),
      ]),
    );
    const by = (cls: string) => bars.filter((b) => b[0] === cls).map((b) => b[1]);
    expect(by('2xx')).toEqual(summary.timeline.points.map((p) => p['2xx']));
    expect(by('5xx')).toEqual([1, 2, 3, 4, 5]);
    expect(by('4xx')).toEqual([1, 1, 1, 1, 1, 1]);
    expect(bars.every((b) => (b[2] as number) > 0)).toBe(true);
  });

  it('draws latency percentiles overall and per upstream', async () => {
    const bars = await page.$$eval('#latency-chart rect', (rects) =>
      rects.map((r) => [
        r.getAttribute('data-series'),
        r.getAttribute('data-quantile'),
        Number(r.getAttribute('data-value')),
      ]),
    );
    const value = (series: string, q: string) => bars.find((b) => b[0] === series && b[1] === q)?.[2];
    expect(value('overall', 'p99')).toBe(summary.latency.requestTime.p99);
    const up = summary.upstreams.find((u) => u.address === '10.0.0.2:80')!;
    expect(value('10.0.0.2:80', 'p50')).toBe(up.responseTime.p50);
    const rows = await page.$$eval('#upstream-table tr', (trs) => trs.slice(1).map((tr) => tr.textContent));
    expect(rows.length).toBe(summary.upstreams.length);
  });

  it('is self-contained and inert: no network request, hostile log text stays data', async () => {
    expect(summary.malformed.samples[0]!.text).toContain('</script>');
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
    const paths = await page.$$eval('#paths-table td[data-col="path"]', (tds) =>
      tds.map((td) => td.textContent),
    );
    expect(paths).toEqual(['/p/502']);
    expect(await page.evaluate(() => typeof (globalThis as { bad?: unknown }).bad)).toBe('undefined');
  });
});
