import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLogsStatsCommand } from '../../../proxy-config/logs/logs-stats-command.js';
import { incidentLog } from '../../support/report-sample-logs.mjs';
import { hoverDetail, launchChromium, openWatched, overlappingLabels } from './report-browser.js';

let dir: string;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'proxyops-live-'));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Starts `logs stats --follow --serve 127.0.0.1:0` on `inputs`; resolves once it says where it listens. */
async function startLive(inputs: string[], extra: Record<string, unknown> = {}) {
  let stderr = '';
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const run = runLogsStatsCommand(
    inputs,
    { preset: 'proxyops', follow: true, serve: '127.0.0.1:0', ...extra },
    {
      stdout: { write: () => true, isTTY: false },
      stderr: { write: (t: string) => (stderr += t) },
      stdin: Object.assign(Readable.from([]), { isTTY: true }),
      env: {},
      untilStopped: stopped,
    },
  );
  const failed = run.then((code) => {
    throw new Error(`the run ended (exit ${code}) before listening: ${stderr}`);
  });
  for (;;) {
    const url = /live report at (\S+)/.exec(stderr)?.[1];
    if (url) return { url, run, stop: async () => (stop(), run) };
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 50)), failed]);
  }
}

describe('logs stats --follow --serve: the live report in Chromium', () => {
  it('shows lines within seconds of their being written, in place, with nothing from outside', async () => {
    const log = join(dir, 'access.log');
    const before = incidentLog({ upstreams: 40, minutes: 5, seed: 1 });
    await writeFile(log, before.text); // there before the follow starts: not counted
    const live = await startLive([log]);
    const response = await fetch(live.url);
    expect(response.headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const w = await openWatched(browser, live.url);
    await w.page.waitForSelector('#live-state:text("live")', { timeout: 10_000 });
    expect(await w.page.locator('[data-metric="records"]').textContent()).toBe('0');

    // The default update period with --serve is 2 s: the page shows the new lines within a few seconds.
    const burst = incidentLog({ upstreams: 40, minutes: 20, perMinute: 30, seed: 2 });
    await appendFile(log, burst.text);
    await w.page.waitForSelector(
      `[data-metric="records"]:text-is("${burst.counts.records.toLocaleString('en-US')}")`,
      {
        timeout: 8_000,
      },
    );
    expect(await w.page.locator('[data-metric="proxy5xx"]').textContent()).toBe(
      burst.counts.proxy5xx.toLocaleString('en-US'),
    );
    expect(await w.page.locator('#upstream-chart [data-row]').count()).toBeGreaterThan(10);
    // Updated in place: the same document, its report replaced by each event.
    expect(Number(await w.page.getAttribute('body', 'data-updates'))).toBeGreaterThanOrEqual(1);
    expect(await hoverDetail(w.page, '#errors-chart rect.hit')).toMatch(
      /UTC \+ 1 min: 5xx made by nginx: \d+/,
    );
    expect(await overlappingLabels(w.page)).toEqual([]);

    const more = incidentLog({
      upstreams: 40,
      minutes: 1,
      perMinute: 10,
      startMs: Date.UTC(2026, 10, 21, 11, 0, 0),
      seed: 3,
    });
    await appendFile(log, more.text);
    const total = burst.counts.records + more.counts.records;
    await w.page.waitForSelector(`[data-metric="records"]:text-is("${total.toLocaleString('en-US')}")`, {
      timeout: 8_000,
    });

    expect(w.errors).toEqual([]);
    const origin = new URL(live.url).origin;
    expect(w.requests.filter((u) => !u.startsWith(origin))).toEqual([]);
    expect(await live.stop()).toBe(0);
    await w.page.close();
  }, 60_000);

  it('answers only its two routes, and only GET', async () => {
    const log = join(dir, 'quiet.log');
    await writeFile(log, '');
    const live = await startLive([log]);
    expect((await fetch(new URL('/nope', live.url))).status).toBe(404);
    expect((await fetch(live.url, { method: 'POST' })).status).toBe(405);
    const events = await fetch(new URL('/events', live.url));
    expect(events.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = events.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toMatch(/^retry: 2000\nevent: report\ndata: "/);
    await reader.cancel();
    expect(await live.stop()).toBe(0);
  }, 30_000);

  it('refuses --serve without --follow, and an address that is not HOST:PORT, before reading', async () => {
    const io = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      stdin: Object.assign(Readable.from([]), { isTTY: true }),
      env: {},
    };
    await expect(runLogsStatsCommand(['/nonexistent.log'], { serve: '127.0.0.1:0' }, io)).rejects.toThrow(
      '--serve needs --follow',
    );
    await expect(
      runLogsStatsCommand(['/nonexistent.log'], { follow: true, serve: 'localhost' }, io),
    ).rejects.toThrow('--serve wants HOST:PORT');
  });

  it('shares one listener with --metrics-listen given the same HOST:PORT', async () => {
    const log = join(dir, 'shared.log');
    await writeFile(log, '');
    // A port the system picked and freed: both options name it, so only one listener can take it.
    const probe = await startLive([log]);
    const port = new URL(probe.url).port;
    await probe.stop();
    const live = await startLive([log], { serve: `127.0.0.1:${port}`, metricsListen: `127.0.0.1:${port}` });
    await appendFile(log, incidentLog({ upstreams: 2, minutes: 1, perMinute: 5, seed: 3 }).text);
    const page = await fetch(live.url);
    expect(page.headers.get('content-type')).toContain('text/html');
    const metrics = await fetch(new URL('/metrics', live.url));
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('proxyops_log_lines_total');
    await live.stop();
  }, 30_000);

  it('says the address is in use when it is', async () => {
    const log = join(dir, 'busy.log');
    await writeFile(log, '');
    const first = await startLive([log]);
    const port = new URL(first.url).port;
    await expect(startLive([log], { serve: `127.0.0.1:${port}` })).rejects.toMatchObject({
      code: 'PORT_IN_USE',
      message: expect.stringContaining('--serve') as unknown,
    });
    await first.stop();
  }, 30_000);
});
