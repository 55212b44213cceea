import { existsSync, readFileSync } from 'node:fs';
import { appendFile, rename, truncate, writeFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalNginx } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { followLogFile } from '../../../proxy-config/shell/logs/follow-log-file.js';
import { runLogsStatsCommand } from '../../../proxy-config/logs/logs-stats-command.js';
import { PROXYOPS_LOG_FORMAT_TEXT } from '../../../proxy-config/core/render/log-formats.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(25);
  }
}

describe('following a log that a real nginx writes, across rotation and truncation', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  let port: number;

  beforeAll(async () => {
    app = await startUpstreamApp();
    port = await freePort();
    nginx = await startLiveNginx(
      `
      map $http_x_request_id $proxyops_request_id { default $http_x_request_id; '' $request_id; }
      server { listen 127.0.0.1:${port}; location / { proxy_pass http://127.0.0.1:${app.port}; } }`,
      { logFormat: PROXYOPS_LOG_FORMAT_TEXT },
    );
  });
  afterAll(async () => {
    await nginx?.stop();
    await app?.close();
  });

  it('sees every request exactly once: mv + reopen mid-stream, then truncation', async () => {
    const seen: number[] = [];
    const follow = followLogFile(
      nginx.accessLog,
      (text) => {
        for (const m of text.matchAll(/"GET \/seq\/(\d+) HTTP/g)) seen.push(Number(m[1]));
      },
      { pollMs: 20, rotateGraceMs: 2_000 },
    );
    let next = 0;
    const send = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const res = await fetch(`http://127.0.0.1:${port}/seq/${next++}`);
        await res.arrayBuffer();
      }
    };
    try {
      await send(40);
      // Rotate while requests keep coming: nginx writes to the moved file until it reopens.
      const during = send(60);
      await sleep(30);
      await rename(nginx.accessLog, `${nginx.accessLog}.1`);
      await sleep(50);
      await signalNginx(nginx.target, 'reopen');
      await during;
      await send(40);
      await until(() => seen.length >= next);
      // copytruncate-style: truncated in place; nginx appends (O_APPEND) from the new end.
      await truncate(nginx.accessLog, 0);
      await send(40);
      await until(() => seen.length >= next);
    } finally {
      follow.stop();
    }
    expect(next).toBe(180);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: next }, (_, i) => i));
  });
});

describe('logs stats --follow', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-follow-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const line = (n: number, status = 200) =>
    `10.0.0.9 - - [21/Nov/2026:10:00:01 +0000] "GET /n/${n} HTTP/1.1" ${status} 5 "-" "ua" rt=0.020 ` +
    `uct="0.001" uht="0.002" urt="0.015" ua="10.0.0.1:80" us="${status}" rid="r" ui="-"\n`;

  it('--state-out writes the state when the follow ends; --prom-textfile counts lines as read, times are the log its own', async () => {
    const path = join(dir, 'state-follow.log');
    const state = join(dir, 'follow.state.json');
    const textfile = join(dir, 'follow.prom');
    await writeFile(path, '');
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    let out = '';
    const run = runLogsStatsCommand(
      [path],
      {
        follow: true,
        ndjson: true,
        interval: '100ms',
        stateOut: state,
        promTextfile: textfile,
        preset: 'proxyops',
      },
      {
        stdout: { write: (t: string) => (out += t), isTTY: false },
        stderr: { write: () => true },
        stdin: Object.assign(Readable.from([]), { isTTY: true }),
        env: {},
        untilStopped: stopped,
      },
    );
    await until(() => out !== '');
    // A line written late with an old time (a rotated file picked up late): counted now, kept at its minute.
    const late = line(1).replace('21/Nov/2026:10:00:01', '20/Nov/2026:23:59:30');
    await appendFile(path, line(0) + late + line(2, 502));
    await until(
      () => existsSync(textfile) && readFileSync(textfile, 'utf8').includes('proxyops_log_lines_total 3'),
    );
    stop();
    expect(await run).toBe(0);
    const doc = JSON.parse(readFileSync(state, 'utf8')) as {
      records: number;
      timeline: { intervalMs: number; points: Array<[number, number[]]> };
      timeRange: { firstMs: number; lastMs: number };
    };
    expect(doc.records).toBe(3);
    expect(doc.timeline.points.map(([start, counts]) => [new Date(start).toISOString(), counts[0]])).toEqual([
      ['2026-11-20T23:59:00.000Z', 1],
      ['2026-11-21T10:00:00.000Z', 2],
    ]);
    expect(doc.timeRange.lastMs).toBe(Date.UTC(2026, 10, 21, 10, 0, 1));
    const prom = readFileSync(textfile, 'utf8');
    expect(prom).toContain(
      `proxyops_log_newest_record_timestamp_seconds ${Date.UTC(2026, 10, 21, 10, 0, 1) / 1000}\n`,
    );
  });

  it('streams NDJSON per interval and ends with exact totals across move + recreate and truncation', async () => {
    const path = join(dir, 'access.log');
    await writeFile(path, line(-1).repeat(5)); // already there before the follow: not counted
    let out = '';
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const run = runLogsStatsCommand(
      [path],
      { follow: true, ndjson: true, interval: '100ms', json: false },
      {
        stdout: { write: (t: string) => (out += t), isTTY: false },
        stderr: { write: () => true },
        stdin: Object.assign(Readable.from([]), { isTTY: true }),
        env: {},
        untilStopped: stopped,
      },
    );
    const records = () =>
      out
        .trim()
        .split('\n')
        .filter(Boolean)
        .reduce((n, l) => n + (JSON.parse(l) as { records: number }).records, 0);
    // The follow starts after an async step: its first (empty) interval line shows it holds the file.
    await until(() => out !== '');
    let written = 0;
    const write = async (count: number, status = 200) => {
      let text = '';
      for (let i = 0; i < count; i++) text += line(written++, status);
      await appendFile(path, text);
    };
    await write(100);
    await write(20, 502);
    await rename(path, `${path}.1`);
    await appendFile(`${path}.1`, line(written++)); // the writer has not reopened yet
    await writeFile(path, '');
    await write(50);
    await until(() => records() === written);
    await truncate(path, 0);
    await write(30, 504);
    await until(() => records() === written);
    stop();
    const code = await run;
    expect(code).toBe(0);
    expect(written).toBe(201);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, number>);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.reduce((n, l) => n + (l.records ?? 0), 0)).toBe(201);
    expect(lines.reduce((n, l) => n + (l['5xx'] ?? 0), 0)).toBe(50);
  });

  it('--fail-if is evaluated while following: the run ends with 1 as soon as the condition holds', async () => {
    const path = join(dir, 'alert.log');
    await writeFile(path, '');
    let out = '';
    let err = '';
    const run = runLogsStatsCommand(
      [path],
      { follow: true, json: true, interval: '100ms', failIf: ['5xx_ratio>0.5'] },
      {
        stdout: { write: (t: string) => (out += t), isTTY: false },
        stderr: { write: (t: string) => (err += t) },
        stdin: Object.assign(Readable.from([]), { isTTY: true }),
        env: {},
        untilStopped: new Promise<void>(() => undefined), // nobody presses Ctrl-C
      },
    );
    let settled = false;
    void run.finally(() => (settled = true));
    await until(() => out !== '');
    await appendFile(path, line(1).repeat(10));
    await until(() => out.includes('"records":10'));
    expect(settled).toBe(false); // healthy so far: it keeps following
    await appendFile(path, line(2, 502).repeat(30));
    expect(await run).toBe(1);
    expect(err).toContain('--fail-if holds: 5xx_ratio>0.5 (5xx_ratio=0.75)');
  });
});
