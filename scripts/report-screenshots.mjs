// Regenerates the screenshots of the HTML report in docs/img/ (shown on docs/access-logs.md): the
// report of a generated incident across 40 upstreams (light and dark) and of the same traffic in a
// `combined` log, which logs no upstream and no timing, and the live page of `--follow --serve` once
// lines have arrived. Runs the built CLI (npm run build first) and Debian's Chromium.
// Usage: npm run docs:screenshots
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { combinedLog, incidentLog } from '../test/support/report-sample-logs.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const out = join(root, 'docs', 'img');
const dir = mkdtempSync(join(tmpdir(), 'proxyops-screenshots-'));
/** The live runs started, ended when the script ends. */
const running = [];

/** Writes the log, runs `logs stats --html` on it and returns the report's path. */
function report(name, text, preset) {
  const log = `${name}.log`;
  const html = join(dir, `${name}.html`);
  writeFileSync(join(dir, log), text);
  // Run where the log is, so the page names it as a person would have typed it.
  const run = spawnSync(
    process.execPath,
    [join(root, 'dist/cli/main.js'), 'logs', 'stats', '--preset', preset, log, '--html', html],
    {
      encoding: 'utf8',
      cwd: dir,
    },
  );
  if (run.status !== 0) throw new Error(`logs stats exited ${run.status}: ${run.stderr}`);
  return html;
}

const shots = [
  {
    file: 'report-incident.png',
    html: report('access', incidentLog({ upstreams: 40 }).text, 'proxyops'),
    scheme: 'light',
  },
  { file: 'report-incident-dark.png', html: join(dir, 'access.html'), scheme: 'dark', upTo: '#upstreams' },
  {
    file: 'report-combined.png',
    html: report('combined-access', combinedLog().text, 'combined'),
    scheme: 'light',
  },
  { file: 'report-live.png', live: true, scheme: 'light', upTo: '#rate' },
];
mkdirSync(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
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
try {
  for (const shot of shots) {
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 }, colorScheme: shot.scheme });
    await (shot.live ? openLive(page) : openFile(page, shot.html));
    // The charts, down to the exact-count tables (or the section named): the tables are text.
    const end = await page.locator(shot.upTo ?? '#tables').boundingBox();
    await page.screenshot({
      path: join(out, shot.file),
      fullPage: true,
      clip: { x: 0, y: 0, width: 1000, height: Math.ceil(end.y) },
    });
    await page.close();
    console.log(`wrote docs/img/${shot.file}`);
  }
} finally {
  await browser.close();
  for (const run of running) run.kill('SIGINT');
  rmSync(dir, { recursive: true, force: true });
}

async function openFile(page, html) {
  await page.goto(pathToFileURL(html).href);
  await page.waitForSelector('body[data-ready="true"]');
}

/** Follows an empty log with --serve, opens its page, then writes the incident and waits for the page to show it. */
async function openLive(page) {
  writeFileSync(join(dir, 'live.log'), '');
  const run = spawn(
    process.execPath,
    [
      join(root, 'dist/cli/main.js'),
      'logs',
      'stats',
      '--preset',
      'proxyops',
      '--follow',
      'live.log',
      '--serve',
      '127.0.0.1:0',
    ],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  running.push(run);
  const url = await new Promise((resolve, reject) => {
    let said = '';
    run.stderr.on('data', (chunk) => {
      said += chunk;
      const found = /live report at (\S+)/.exec(said);
      if (found) resolve(found[1]);
    });
    run.once('exit', (code) => reject(new Error(`logs stats --serve exited ${code}: ${said}`)));
  });
  await page.goto(url);
  await page.waitForSelector('#live-state:text("live")');
  const { text, counts } = incidentLog({ upstreams: 40, minutes: 30 });
  appendFileSync(join(dir, 'live.log'), text);
  await page.waitForSelector(`[data-metric="records"]:text-is("${counts.records.toLocaleString('en-US')}")`, {
    timeout: 20_000,
  });
}
