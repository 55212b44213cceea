import { execa } from 'execa';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { histogramQuantiles } from '../../../proxy-config/core/logs/histogram.js';
import { MAX_UPSTREAM_LABELS } from '../../../proxy-config/core/logs/log-metric-labels.js';
import { presetFormat } from '../../../proxy-config/core/logs/log-format-presets.js';
import { createLogMetrics } from '../../../proxy-config/logs/log-metrics.js';
import { runLogsStatsCommand } from '../../../proxy-config/logs/logs-stats-command.js';
import { collectLogStats } from '../../../proxy-config/logs/logs-stats.js';
import { textLine } from './log-line-corpus.js';

// Each form nginx writes in $upstream_* (docs/access-logs.md, the proxy-generated rule), checked in
// the state and in the metrics made from it.
const RETRIED_ACROSS_GROUPS = textLine({
  status: '200',
  rt: '0.012',
  ua: '10.0.1.11:8080, 10.0.1.12:8080 : 10.0.1.13:8080',
  us: '502, 504 : 200',
  uct: '0.001, 0.002 : 0.003',
  uht: '-, 0.004 : 0.009',
  urt: '0.001, 0.002 : 0.010',
});
const NO_UPSTREAM = textLine({ status: '413', rt: '0.000', ua: '-', us: '-', uct: '-', uht: '-', urt: '-' });
const ZERO_TIMES = textLine({
  status: '204',
  rt: '0.000',
  ua: '10.0.1.13:8080',
  uct: '0.000',
  uht: '0.000',
  urt: '0.000',
  us: '204',
});
const CLIENT_CLOSED = textLine({
  status: '499',
  rt: '0.250',
  ua: '10.0.1.13:8080',
  uct: '0.001',
  uht: '-',
  urt: '0.250',
  us: '-',
});
const LINES = [RETRIED_ACROSS_GROUPS, NO_UPSTREAM, ZERO_TIMES, CLIENT_CLOSED];

/** Samples of metric `name` as [labels, value], labels as a sorted object (the text's order is the client's). */
function samples(text: string, name: string): Array<[Record<string, string>, number]> {
  const out: Array<[Record<string, string>, number]> = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries(
      [...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1]!, x[2]!]),
    );
    out.push([labels, Number(m[3])]);
  }
  return out;
}

/** The value of the one sample of `name` with exactly these labels, or undefined. */
function value(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort());
  return samples(text, name).find(([l]) => JSON.stringify(Object.entries(l).sort()) === want)?.[1];
}

describe('multi-valued and "-" upstream values', () => {
  let dir: string;
  let log: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-edge-values-'));
    log = join(dir, 'access.log');
    await writeFile(log, LINES.join('\n') + '\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('are split per attempt and per upstream group in the state; "-" is no attempt, 0.000 is zero', async () => {
    const state = await collectLogStats({ inputs: [log], spec: presetFormat('proxyops') });
    expect(state.records).toBe(4);
    expect(state.retriedRequests).toBe(1);
    const [a, b, c] = ['10.0.1.11:8080', '10.0.1.12:8080', '10.0.1.13:8080'].map((x) =>
      state.upstreams.get(x)!,
    );
    expect([a!.requests, a!.retries, a!.final, a!.status5xx, a!.proxyGenerated]).toEqual([1, 1, 0, 1, 1]);
    expect([b!.requests, b!.retries, b!.final, b!.status5xx, b!.proxyGenerated]).toEqual([1, 1, 0, 1, 0]);
    expect([c!.requests, c!.retries, c!.final, c!.status5xx]).toEqual([3, 0, 3, 0]);
    // "-" in $upstream_header_time: the attempt had no header time, not a header time of 0.
    expect(a!.header.total).toBe(0);
    expect(b!.header.total).toBe(1);
    expect(histogramQuantiles(a!.response, [1])).toEqual([1]);
    expect(histogramQuantiles(b!.response, [1])).toEqual([2]);
    // c: 10 ms (the third group), 0 ms, 250 ms; its header: 9 ms and 0 ms (the 499's is "-").
    expect(c!.response.total).toBe(3);
    expect(histogramQuantiles(c!.response, [0.1, 0.5, 1])).toEqual([0, 10, 250]);
    expect(c!.header.total).toBe(2);
    expect(c!.response.counts[0]).toBe(1);
    // No upstream at all: no attempt anywhere, "-" as the final upstream status, made by nginx.
    expect(state.upstreamFinal[1000]).toBe(2);
    expect(state.upstreamFinal[200]).toBe(1);
    expect(state.proxyGenerated[413]).toBe(1);
    expect(state.upstreamReturned[200]).toBe(1);
    expect(state.proxyGenerated[499]).toBe(1);
    expect(state.requestTime.counts[0]).toBe(2);
  });

  it('give the same attempts, origins and times in the metrics', async () => {
    const state = await collectLogStats({ inputs: [log], spec: presetFormat('proxyops') });
    const metrics = createLogMetrics({ host: 'web1' });
    metrics.add(state);
    const text = await metrics.text();
    const host = 'web1';
    const attempts = 'proxyops_log_upstream_attempts_total';
    expect(value(text, attempts, { upstream: '10.0.1.11:8080', host })).toBe(1);
    expect(value(text, attempts, { upstream: '10.0.1.13:8080', host })).toBe(3);
    expect(samples(text, 'proxyops_log_upstream_5xx_attempts_total')).toEqual([
      [{ upstream: '10.0.1.11:8080', origin: 'nginx', host }, 1],
      [{ upstream: '10.0.1.12:8080', origin: 'upstream', host }, 1],
    ]);
    // "-" is not observed: no header-time series for the attempt that had none.
    const header = 'proxyops_log_upstream_header_duration_seconds_count';
    expect(value(text, header, { upstream: '10.0.1.11:8080', host })).toBeUndefined();
    expect(value(text, header, { upstream: '10.0.1.12:8080', host })).toBe(1);
    const bucket = (le: string) =>
      value(text, 'proxyops_log_upstream_response_duration_seconds_bucket', {
        le,
        upstream: '10.0.1.13:8080',
        host,
      });
    // 0 ms, 10 ms, 250 ms (0.25 s is a bound of both the exponential and the le buckets).
    expect([
      bucket('0.001'),
      bucket('0.005'),
      bucket('0.01'),
      bucket('0.1'),
      bucket('0.25'),
      bucket('0.5'),
    ]).toEqual([1, 1, 2, 2, 3, 3]);
    const requests = 'proxyops_log_requests_total';
    expect(value(text, requests, { status: '413', status_class: '4xx', origin: 'nginx', host })).toBe(1);
    expect(value(text, requests, { status: '200', status_class: '2xx', origin: 'upstream', host })).toBe(1);
    expect(value(text, 'proxyops_log_newest_record_timestamp_seconds', { host })).toBe(
      Date.UTC(2026, 10, 21, 10, 0, 1) / 1000,
    );
  });

  it('fold upstreams past the cap into "other"', async () => {
    const many = join(dir, 'many.log');
    const lines = Array.from({ length: MAX_UPSTREAM_LABELS + 10 }, (_, i) =>
      textLine({ ua: `10.0.${Math.floor(i / 250)}.${i % 250}:8080` }),
    );
    await writeFile(many, lines.join('\n') + '\n');
    const metrics = createLogMetrics();
    metrics.add(await collectLogStats({ inputs: [many], spec: presetFormat('proxyops') }));
    const attempts = samples(await metrics.text(), 'proxyops_log_upstream_attempts_total');
    expect(attempts.length).toBe(MAX_UPSTREAM_LABELS + 1);
    expect(attempts.find(([l]) => l.upstream === 'other')?.[1]).toBe(10);
  });

  it('--prom-textfile writes them atomically, readable by node_exporter, and promtool accepts the text', async () => {
    const textfile = join(dir, 'proxyops.prom');
    let err = '';
    const code = await runLogsStatsCommand(
      [log],
      { preset: 'proxyops', json: true, promTextfile: textfile, label: ['host=web1'] },
      {
        stdout: { write: () => true },
        stderr: { write: (t: string) => (err += t) },
        stdin: Object.assign(Readable.from([]), { isTTY: false }),
        env: {},
      },
    );
    expect(code, err).toBe(0);
    expect((await stat(textfile)).mode & 0o777).toBe(0o644);
    const text = await readFile(textfile, 'utf8');
    expect(text).toContain('proxyops_log_lines_total{host="web1"} 4\n');
    const check = await execa('promtool', ['check', 'metrics'], { input: text, reject: false });
    expect(check.exitCode, `${check.stdout}${check.stderr}`).toBe(0);
  });

  it('--label refuses names the metrics set themselves', async () => {
    await expect(
      runLogsStatsCommand(
        [log],
        { preset: 'proxyops', promTextfile: join(dir, 'x.prom'), label: ['upstream=x'] },
        {
          stdout: { write: () => true },
          stderr: { write: () => true },
          stdin: Object.assign(Readable.from([]), { isTTY: false }),
          env: {},
        },
      ),
    ).rejects.toThrow(/--label upstream: the metrics set that label themselves/);
  });
});
