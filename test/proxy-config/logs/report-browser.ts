import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

/** Debian's Chromium, headless, with nothing of its own going to the network. */
export async function launchChromium(): Promise<Browser> {
  // No skip: the report must be checked in a real browser; scripts/ensure-system-deps.mjs installs it.
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A page that keeps every console error, uncaught exception and request it made. */
export interface WatchedPage {
  page: Page;
  errors: string[];
  requests: string[];
}

export async function openWatched(
  browser: Browser,
  url: string,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<WatchedPage> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, colorScheme });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 15_000 });
  return { page, errors, requests };
}

/**
 * Every pair of labels that overlap, measured from their bounding boxes as drawn: the text of each
 * chart (ticks, names, counts, titles) and the items of each legend.
 */
export function overlappingLabels(page: Page): Promise<string[]> {
  return page.$$eval('svg.chart, ul.legend', (containers) => {
    const groups = containers.map((c) => [...c.querySelectorAll(c.tagName === 'UL' ? 'li' : 'text')]);
    const found: string[] = [];
    for (const group of groups) {
      const boxes = group.map((el) => ({ text: el.textContent ?? '', box: el.getBoundingClientRect() }));
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) {
          const a = boxes[i]!.box;
          const b = boxes[j]!.box;
          if (
            a.left < b.right - 0.5 &&
            b.left < a.right - 0.5 &&
            a.top < b.bottom - 0.5 &&
            b.top < a.bottom - 0.5
          )
            found.push(`"${boxes[i]!.text}" / "${boxes[j]!.text}"`);
        }
    }
    return found;
  });
}

/** Labels drawn (partly) outside their chart, where the page would cut them. */
export function labelsOutsideCharts(page: Page): Promise<string[]> {
  return page.$$eval('svg.chart', (svgs) =>
    svgs.flatMap((svg) => {
      const frame = svg.getBoundingClientRect();
      return [...svg.querySelectorAll('text')]
        .filter((t) => {
          const b = t.getBoundingClientRect();
          return (
            b.left < frame.left - 0.5 ||
            b.right > frame.right + 0.5 ||
            b.top < frame.top - 0.5 ||
            b.bottom > frame.bottom + 0.5
          );
        })
        .map((t) => t.textContent ?? '');
    }),
  );
}

/** Moves the mouse over an element and returns the hover detail the page shows. */
export async function hoverDetail(page: Page, selector: string): Promise<string> {
  await page.locator(selector).first().hover({ force: true });
  await page.waitForSelector('#tip:not([hidden])', { timeout: 5_000 });
  return (await page.locator('#tip').textContent()) ?? '';
}

/** The page's background colour as computed. */
export function background(page: Page): Promise<string> {
  return page.$eval('body', (body) => body.ownerDocument.defaultView!.getComputedStyle(body).backgroundColor);
}
