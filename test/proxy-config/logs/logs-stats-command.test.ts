import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presetFormat } from '../../../proxy-config/core/logs/log-format-presets.js';
import { PROXYOPS_LOG_FORMAT_JSON } from '../../../proxy-config/core/render/log-formats.js';
import {
  runLogsStatsCommand,
  type LogsStatsCommandOptions,
} from '../../../proxy-config/logs/logs-stats-command.js';
import { computeLogStats } from '../../../proxy-config/logs/logs-stats.js';

const LINE = (status: string, uht: string, minute = '00') =>
  `10.0.0.9 - - [21/Nov/2026:10:${minute}:01 +0000] "GET /api/x HTTP/1.1" ${status} 5 "-" "ua" rt=0.020 ` +
  `uct="0.001" uht="${uht}" urt="0.015" ua="10.0.0.1:80" us="${status}" rid="r" ui="-"\n`;

async function run(inputs: string[], options: LogsStatsCommandOptions, stdinText = '') {
  let out = '';
  let err = '';
  const stdin = Object.assign(Readable.from([Buffer.from(stdinText)]), { isTTY: false });
  const code = await runLogsStatsCommand(inputs, options, {
    stdout: { write: (t: string) => (out += t), isTTY: false },
    stderr: { write: (t: string) => (err += t) },
    stdin,
    env: {},
  });
  return { code, out, err };
}

describe('proxyops logs stats (command)', () => {
  let dir: string;
  let plain: string;
  let gz: string;
  const plainText =
    LINE('200', '0.010') + LINE('502', '-', '01') + 'broken line\n' + LINE('200', '0.010', '01');
  const gzText = LINE('504', '-', '02') + LINE('499', '-', '02');
  const stdinText = LINE('200', '0.010', '03') + LINE('502', '0.002', '03');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-logs-cmd-'));
    plain = join(dir, 'access.log');
    gz = join(dir, 'access.log.1.gz');
    await writeFile(plain, plainText);
    await writeFile(gz, gzipSync(Buffer.from(gzText)));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads a file, a .gz file and standard input in one run (--json)', async () => {
    const { code, out, err } = await run([plain, gz, '-'], { json: true }, stdinText);
    expect(code).toBe(0);
    const doc = JSON.parse(out);
    for (const key of [
      'records',
      'malformed',
      'status',
      'upstreamStatus',
      'proxyGenerated',
      'clientClosed',
      'upstreams',
      'latency',
    ])
      expect(doc).toHaveProperty(key);
    expect(doc.inputs).toEqual([plain, gz, '-']);
    expect(doc.records).toBe(7);
    expect(doc.status).toEqual({ '200': 3, '499': 1, '502': 2, '504': 1 });
    expect(doc.proxyGenerated).toEqual({ total: 3, status: { '499': 1, '502': 1, '504': 1 } });
    expect(doc.malformed).toEqual({ count: 1, samples: [{ input: plain, line: 3, text: 'broken line' }] });
    expect(err).toContain(`${plain}:3: broken line`);
  });

  it('reads standard input when no input is given and stdin is not a terminal', async () => {
    const { out } = await run([], { json: true }, stdinText);
    expect(JSON.parse(out).records).toBe(2);
  });

  it('--ndjson writes one summary per interval', async () => {
    const { out } = await run([plain, gz], { ndjson: true });
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.time, l.records, l['5xx'], l['499']])).toEqual([
      ['2026-11-21T10:00:00.000Z', 1, 0, 0],
      ['2026-11-21T10:01:00.000Z', 2, 1, 0],
      ['2026-11-21T10:02:00.000Z', 2, 1, 1],
    ]);
  });

  it('--prom writes the Prometheus text format, with the metrics of the docs (as --prom-textfile)', async () => {
    const { out } = await run([plain], { prom: true });
    expect(out).toContain('# TYPE proxyops_log_requests_total counter');
    expect(out).toContain('proxyops_log_lines_total 4\n');
    expect(out).toContain('proxyops_log_requests_total{status="502",status_class="5xx",origin="nginx"} 1');
    expect(out).toContain('proxyops_log_requests_total{status="200",status_class="2xx",origin="upstream"} 2');
    expect(out).toContain('proxyops_log_upstream_attempts_total{upstream="10.0.0.1:80"} 3');
    expect(out).toContain('# TYPE proxyops_log_request_duration_seconds histogram');
    for (const line of out.trim().split('\n'))
      expect(line).toMatch(/^(|# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? -?[0-9.e+-]+)$/);
  });

  it('the table is plain text when not a terminal, and shows malformed lines with numbers', async () => {
    const { out } = await run([plain], {});
    expect(out).not.toContain('\x1b[');
    expect(out).toContain('proxy-generated   1');
    expect(out).toContain(`${plain}:3: broken line`);
  });

  it('--fail-if exits 1 when it holds and says why, 0 otherwise', async () => {
    const held = await run([plain], { json: true, failIf: ['5xx_ratio>0.01', '499>100'] });
    expect(held.code).toBe(1);
    // Rounded to four significant digits, not 0.3333333333333333.
    expect(held.err).toContain('proxyops: --fail-if holds: 5xx_ratio>0.01 (5xx_ratio=0.3333)\n');
    expect(held.err).toContain('proxyops: --fail-if does not hold: 499>100 (499=0)\n');
    const quiet = await run([plain], { json: true, failIf: ['499>100 || p99>=5'] });
    expect(quiet.code).toBe(0);
    // What it checked and the figures, when it does not hold too.
    expect(quiet.err).toMatch(
      /^proxyops: --fail-if does not hold: 499>100 \|\| p99>=5 \(499=0 p99=[0-9.]+\)$/m,
    );
  });

  it('--fail-if on a metric the format lacks (p99 of combined) warns that it can never hold', async () => {
    const combined = join(dir, 'combined.log');
    await writeFile(
      combined,
      '127.0.0.1 - - [27/Nov/2026:04:00:00 +0000] "GET / HTTP/1.1" 200 12 "-" "curl/8.0"\n'.repeat(20),
    );
    const result = await run([combined], { json: true, failIf: ['p99>1', '5xx>0'] });
    expect(result.code).toBe(0);
    expect(result.err).toContain('warning: --fail-if p99>1: these logs give no p99 (not in their format)');
    expect(result.err).not.toContain('--fail-if 5xx>0');
  });

  it('filters, and --html writes a report file', async () => {
    const html = join(dir, 'report.html');
    const { out } = await run([plain, gz], { json: true, status: '5xx', html });
    expect(JSON.parse(out).records).toBe(2);
    // The report is of the filtered records too (it draws the numbers; it no longer embeds them as JSON).
    expect(await readFile(html, 'utf8')).toContain('<dd data-metric="records">2</dd>');
  });

  it('reads the format from an nginx config: log_format with escape=json split over several strings', async () => {
    const conf = join(dir, 'nginx.conf');
    const [head, tail] = [PROXYOPS_LOG_FORMAT_JSON.slice(0, 60), PROXYOPS_LOG_FORMAT_JSON.slice(60)];
    await writeFile(conf, `http {\n  log_format pj escape=json\n    '${head}'\n    '${tail}';\n}\n`);
    const jsonLog = join(dir, 'access.json');
    await writeFile(
      jsonLog,
      '{"remote_addr":"::1","remote_user":"","time_local":"21/Nov/2026:10:00:01 +0000","request":"GET /a HTTP/1.1","status":"502","body_bytes_sent":"0","http_referer":"","http_user_agent":"a \\"b\\"","request_time":"0.001","upstream_connect_time":"","upstream_header_time":"","upstream_response_time":"0.000","upstream_addr":"127.0.0.1:9","upstream_status":"502","request_id":"x","upstream_instance":""}\n',
    );
    const { out } = await run([jsonLog], { json: true, nginxConf: conf, formatName: 'pj' });
    const doc = JSON.parse(out);
    expect(doc.format).toBe('pj');
    expect(doc.malformed.count).toBe(0);
    expect(doc.proxyGenerated.status).toEqual({ '502': 1 });
  });

  it('bad input is a clear BAD_OPTION / LOG_FORMAT_INVALID / LOG_UNREADABLE error', async () => {
    await expect(run([plain], { preset: 'nope' })).rejects.toThrow(
      /unknown preset "nope" \(known: combined, common, ingress-nginx, proxyops/,
    );
    await expect(run([plain], { json: true, prom: true })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(run([plain], { logFormat: '$remote_addr' })).rejects.toMatchObject({
      code: 'LOG_FORMAT_INVALID',
    });
    await expect(run([plain], { preset: 'combined', upstream: ['x'] })).rejects.toThrow(/--upstream/);
    await expect(run([join(dir, 'missing.log')], {})).rejects.toMatchObject({ code: 'LOG_UNREADABLE' });
    await expect(run([join(dir, 'missing.log')], { follow: true })).rejects.toMatchObject({
      code: 'LOG_UNREADABLE',
    });
    await writeFile(join(dir, 'corrupt.gz'), 'not gzip at all');
    await expect(run([join(dir, 'corrupt.gz')], {})).rejects.toThrow(
      /cannot read .*corrupt\.gz: not gzip data \(no gzip header\)/,
    );
    await expect(run([gz], { follow: true })).rejects.toThrow(/cannot follow .*: it is compressed/);
    await expect(run([plain], { nginxConf: join(dir, 'nginx.conf'), formatName: 'other' })).rejects.toThrow(
      /no "log_format other"/,
    );
    // Checked before any log is read: nothing is printed first.
    let printed = '';
    await expect(
      runLogsStatsCommand(
        [plain],
        { html: join(dir, 'no-such-dir', 'r.html') },
        {
          stdout: { write: (t: string) => (printed += t) },
          stderr: { write: () => true },
          stdin: Object.assign(Readable.from([]), { isTTY: true }),
          env: {},
        },
      ),
    ).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringContaining('no-such-dir does not exist'),
    });
    expect(printed).toBe('');
    await expect(run([plain], { html: dir })).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringContaining('is a directory'),
    });
  });

  it('--follow on standard input ends with the totals when the input ends', async () => {
    let printed = '';
    const result = await runLogsStatsCommand(
      ['-'],
      { follow: true, json: true, interval: '1h' },
      {
        stdout: { write: (t: string) => (printed += t), isTTY: false },
        stderr: { write: () => true },
        stdin: Object.assign(Readable.from([Buffer.from(stdinText)]), { isTTY: false }),
        env: {},
        untilStopped: new Promise<void>(() => undefined),
      },
    );
    expect(result).toBe(0);
    expect(JSON.parse(printed.trim().split('\n').at(-1)!)).toMatchObject({
      records: 2,
      status: { '200': 1, '502': 1 },
    });
  });

  it('--follow on standard input that fails stops updating and rejects', async () => {
    let printed = '';
    const stdin = Object.assign(
      new Readable({
        read() {
          this.destroy(new Error('EIO: the terminal went away'));
        },
      }),
      { isTTY: false },
    );
    await expect(
      runLogsStatsCommand(
        ['-'],
        { follow: true, json: true, interval: '100ms' },
        {
          stdout: { write: (t: string) => (printed += t), isTTY: false },
          stderr: { write: () => true },
          stdin,
          env: {},
          untilStopped: new Promise<void>(() => undefined),
        },
      ),
    ).rejects.toThrow(/terminal went away/);
    const after = printed;
    // A run left updating would have written several times over in this while.
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(printed).toBe(after);
  });

  it('a file split into byte ranges counts exactly like one pass', async () => {
    const big = join(dir, 'big.log');
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++)
      lines.push(
        i % 97 === 0
          ? `bad ${i}\n`
          : LINE(i % 13 === 0 ? '502' : '200', i % 26 === 0 ? '-' : '0.004', String(i % 60).padStart(2, '0')),
      );
    await writeFile(big, lines.join(''));
    const spec = presetFormat('proxyops');
    const one = await computeLogStats({ inputs: [big], spec, jobs: 1 });
    for (const jobs of [2, 3, 7]) {
      const split = await computeLogStats({ inputs: [big], spec, jobs, splitMinBytes: 0 });
      expect(split).toEqual(one);
      // Many small ranges, taken one at a time: line numbers of samples still count from the file start.
      const ranges = await computeLogStats({ inputs: [big], spec, jobs, splitMinBytes: 0, rangeBytes: 4096 });
      expect(ranges).toEqual(one);
    }
    expect(one.malformed.samples.map((s) => s.line)).toEqual([1, 98, 195, 292, 389]);
    // Real worker threads need the compiled module (npm test builds dist/ first).
    const built = (await import(
      new URL('../../../dist/proxy-config/logs/logs-stats.js', import.meta.url).href
    )) as {
      computeLogStats: typeof computeLogStats;
    };
    expect(await built.computeLogStats({ inputs: [big], spec, jobs: 3, splitMinBytes: 0 })).toEqual(one);
    expect(
      await built.computeLogStats({ inputs: [big], spec, jobs: 2, splitMinBytes: 0, rangeBytes: 8192 }),
    ).toEqual(one);
  });

  it('a file at the split size goes to worker threads and counts exactly like one just under it', async () => {
    const file = join(dir, 'edge.log');
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++)
      lines.push(
        i % 89 === 0
          ? `bad ${i}\n`
          : LINE(i % 7 === 0 ? '504' : '200', '0.010', String(i % 60).padStart(2, '0')),
      );
    await writeFile(file, lines.join(''));
    const size = Buffer.byteLength(lines.join(''));
    const spec = presetFormat('proxyops');
    const built = (await import(
      new URL('../../../dist/proxy-config/logs/logs-stats.js', import.meta.url).href
    )) as { computeLogStats: typeof computeLogStats };
    const run = (splitMinBytes: number) =>
      built.computeLogStats({ inputs: [file], spec, jobs: 2, splitMinBytes, rangeBytes: 16 * 1024 });
    const under = await run(size + 1);
    const at = await run(size);
    expect(at).toEqual(under);
    expect(under.lines).toBe(2000);
    expect(under.malformed.count).toBe(Math.ceil(2000 / 89));
  });
});
