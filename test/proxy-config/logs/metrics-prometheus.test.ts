import { execa, type ResultPromise } from 'execa';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LE_BUCKETS_SECONDS } from '../../../proxy-config/core/logs/log-metric-labels.js';
import { PROXYOPS_LOG_FORMAT_TEXT } from '../../../proxy-config/core/render/log-formats.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

const CLI = fileURLToPath(new URL('../../../dist/cli/main.js', import.meta.url));

/** Polls `probe` every 200 ms until it returns a value, for at most `ms`. */
async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

async function text(url: string): Promise<string | undefined> {
  const response = await fetch(url);
  return response.ok ? response.text() : undefined;
}

/** promtool's verdict on a text exposition: '' when it passes, else what it said. */
async function promtoolSays(exposition: string): Promise<string> {
  const check = await execa('promtool', ['check', 'metrics'], { input: exposition, reject: false });
  return check.exitCode === 0 ? '' : `${check.stdout}${check.stderr}`;
}

describe('a real Prometheus scraping logs stats --follow --metrics-listen while nginx writes the log', () => {
  let dir: string;
  let app: UpstreamApp;
  let nginx: LiveNginx;
  let follower: ResultPromise | undefined;
  let prometheus: ResultPromise | undefined;
  let port: number;
  let metricsPort: number;
  let promPort: number;
  let textfile: string;

  const query = async (promql: string): Promise<number | undefined> => {
    const body = await text(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const result = body
      ? (JSON.parse(body) as { data: { result: Array<{ value: [number, string] }> } }).data.result
      : [];
    return result.length === 1 ? Number(result[0]!.value[1]) : undefined;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-prometheus-'));
    app = await startUpstreamApp();
    [port, metricsPort, promPort] = [await freePort(), await freePort(), await freePort()];
    nginx = await startLiveNginx(
      `map $http_x_request_id $proxyops_request_id { default $http_x_request_id; '' $request_id; }
      server {
        listen 127.0.0.1:${port};
        location / { proxy_pass http://127.0.0.1:${app.port}; }
      }`,
      { logFormat: PROXYOPS_LOG_FORMAT_TEXT },
    );
    await writeFile(nginx.accessLog, '');
    textfile = join(dir, 'proxyops.prom');
    follower = execa(
      process.execPath,
      [
        CLI,
        ...['logs', 'stats', '--follow', nginx.accessLog, '--preset', 'proxyops', '--json'],
        ...['--interval', '1s', '--metrics-listen', `127.0.0.1:${metricsPort}`],
        ...['--prom-textfile', textfile, '--label', 'host=web1'],
      ],
      { reject: false, stdout: 'ignore' },
    );
    await until('the /metrics listener', 20_000, () => text(`http://127.0.0.1:${metricsPort}/metrics`));
    const config = join(dir, 'prometheus.yml');
    await writeFile(
      config,
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        '  - job_name: proxyops',
        `    static_configs: [{ targets: ['127.0.0.1:${metricsPort}'] }]`,
        '',
      ].join('\n'),
    );
    prometheus = execa(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { reject: false, stdout: 'ignore', stderr: 'ignore' },
    );
    await until('Prometheus to be ready', 60_000, () => text(`http://127.0.0.1:${promPort}/-/ready`));
  }, 120_000);

  afterAll(async () => {
    follower?.kill('SIGINT');
    prometheus?.kill('SIGTERM');
    await Promise.all([follower, prometheus]);
    await nginx?.stop();
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts every request of the log, and its p99 falls in the bucket of the log its own p99', async () => {
    // Mostly quick answers, a few slow ones: the p99 lies among the slow ones.
    const delays = Array.from({ length: 400 }, (_, i) => (i % 50 === 7 ? 300 + (i % 7) * 50 : i % 4) * 1);
    for (let i = 0; i < delays.length; i += 20)
      await Promise.all(
        delays
          .slice(i, i + 20)
          .map((ms) => fetch(`http://127.0.0.1:${port}/slow?ms=${ms}`).then((r) => r.text())),
      );
    const log = (await readFile(nginx.accessLog, 'utf8')).trim().split('\n');
    expect(log.length).toBe(400);

    const counted = await until('Prometheus to have scraped every request', 60_000, async () => {
      const n = await query('sum(proxyops_log_requests_total{job="proxyops",host="web1"})');
      return n === log.length ? n : undefined;
    });
    expect(counted).toBe(log.length);
    expect(await query('proxyops_log_lines_total')).toBe(log.length);

    const times = log.map((line) => Number(/ rt=(\S+) /.exec(line)![1])).sort((a, b) => a - b);
    const p99 = times[Math.ceil(0.99 * times.length) - 1]!;
    const upper = LE_BUCKETS_SECONDS.find((le) => le >= p99)!;
    const lower = [0, ...LE_BUCKETS_SECONDS][LE_BUCKETS_SECONDS.indexOf(upper)]!;
    const q = await query(
      'histogram_quantile(0.99, sum by (le) (proxyops_log_request_duration_seconds_bucket{host="web1"}))',
    );
    expect(p99).toBeGreaterThan(0.25);
    expect(q).toBeGreaterThanOrEqual(lower);
    expect(q).toBeLessThanOrEqual(upper);

    // The newest log time read, from the log's own clock (seconds, millisecond resolution at most).
    const newest = await query('proxyops_log_newest_record_timestamp_seconds');
    expect(Math.abs(newest! - Date.now() / 1000)).toBeLessThan(120);
  }, 180_000);

  it('promtool check metrics passes on the served text and on the textfile', async () => {
    const served = await text(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(served).toContain('proxyops_log_request_duration_seconds_bucket{le="0.001",host="web1"}');
    expect(await promtoolSays(served!)).toBe('');
    const file = await until('the textfile', 20_000, () => readFile(textfile, 'utf8'));
    expect(file).toContain('# TYPE proxyops_log_requests_total counter');
    expect(await promtoolSays(file)).toBe('');
  });

  it('the one-off logs stats --prom names the figures as the scraped /metrics does', async () => {
    const names = (exposition: string) =>
      [...exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    const served = await text(`http://127.0.0.1:${metricsPort}/metrics`);
    const oneOff = await execa(
      process.execPath,
      [CLI, ...['logs', 'stats', nginx.accessLog, '--preset', 'proxyops', '--prom']],
      { stripFinalNewline: false },
    );
    expect(names(oneOff.stdout)).toEqual(names(served!));
    expect(names(oneOff.stdout)).toContain('proxyops_log_requests_total counter');
    expect(await promtoolSays(oneOff.stdout)).toBe('');
  });
});
