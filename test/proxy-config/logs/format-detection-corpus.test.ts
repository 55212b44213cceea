import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  COMMON_LOG_FORMAT,
  INGRESS_NGINX_LOG_FORMAT,
} from '../../../proxy-config/core/logs/log-format-presets.js';
import { PROXYOPS_LOG_FORMAT_TEXT } from '../../../proxy-config/core/render/log-formats.js';
import type { StatsSummary } from '../../../proxy-config/core/logs/summarize-stats.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { http2Get, rawGet, sendRaw } from '../../support/raw-traffic.js';
import { runCli } from '../../support/run-cli.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

/** A JSON log_format whose keys are nginx variable names, as users write them (no upstream fields). */
const JSON_VARS_FORMAT =
  '{"time_iso8601":"$time_iso8601","remote_addr":"$remote_addr","request":"$request",' +
  '"status":"$status","body_bytes_sent":"$body_bytes_sent","request_time":"$request_time",' +
  '"http_user_agent":"$http_user_agent"}';

/** The corpus logs: file name → the `access_log` format argument (none: nginx's stock `combined`). */
const LOGS = [
  { file: 'combined.log', format: '', preset: 'combined' },
  { file: 'common.log', format: 'common_fmt', preset: 'common' },
  { file: 'ingress.log', format: 'upstreaminfo', preset: 'ingress-nginx' },
  { file: 'json.log', format: 'json_vars', preset: 'json' },
  { file: 'proxyops.log', format: 'proxyops_text', preset: 'proxyops' },
] as const;

/** Requests each server gets, and what nginx answers: 7×200, 1×400, 1×404, 1×408, 1×502 (11 lines). */
const EXPECTED_STATUS = { '200': 7, '400': 1, '404': 1, '408': 1, '502': 1 };
const LINES_PER_LOG = 11;

async function statsJson(args: string[]): Promise<{ code: number; summary: StatsSummary; stderr: string }> {
  const run = await runCli(['logs', 'stats', '--json', ...args]);
  return { code: run.code, stderr: run.stderr, summary: JSON.parse(run.stdout || 'null') as StatsSummary };
}

describe('logs stats finds the format of logs real nginx wrote', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  let dir: string;
  let copies: string;

  beforeAll(async () => {
    app = await startUpstreamApp();
    const dead = await freePort();
    dir = await mkdtemp(join(tmpdir(), 'proxyops-corpus-'));
    copies = await mkdtemp(join(tmpdir(), 'proxyops-corpus-copies-'));
    await chmod(dir, 0o777);
    const ports = await Promise.all(LOGS.map(async () => ({ h1: await freePort(), h2: await freePort() })));
    const servers = LOGS.map(
      (log, i) => `
      server {
        listen 127.0.0.1:${ports[i]!.h1};
        listen [::1]:${ports[i]!.h1};
        listen 127.0.0.1:${ports[i]!.h2} http2;
        access_log ${join(dir, log.file)}${log.format ? ` ${log.format}` : ''};
        set $proxy_upstream_name upstream-default-app-80;
        set $proxy_alternative_upstream_name "";
        location / { return 200 "ok\\n"; }
        location /missing { return 404; }
        location /app { proxy_pass http://127.0.0.1:${app.port}; }
        location /dead { proxy_pass http://127.0.0.1:${dead}; }
      }`,
    ).join('\n');
    nginx = await startLiveNginx(`
      client_header_timeout 1s;
      map $request_id $req_id { default $request_id; }
      map $http_x_request_id $proxyops_request_id { default $http_x_request_id; '' $request_id; }
      log_format common_fmt '${COMMON_LOG_FORMAT}';
      log_format upstreaminfo '${INGRESS_NGINX_LOG_FORMAT}';
      log_format json_vars escape=json '${JSON_VARS_FORMAT}';
      log_format proxyops_text '${PROXYOPS_LOG_FORMAT_TEXT}';
      ${servers}`);

    const hostileAgent = Buffer.concat([
      Buffer.from(rawGet('/ua', 'User-Agent: say "hi" \\ ').slice(0, -4), 'latin1'),
      Buffer.from([0x01, 0xff, 0x0d, 0x0a, 0x0d, 0x0a]),
    ]);
    await Promise.all(
      ports.map(async ({ h1, h2 }) => {
        for (let i = 0; i < 3; i++) expect(await sendRaw(h1, rawGet('/a'))).toBe(200);
        expect(await sendRaw(h1, rawGet('/missing'))).toBe(404);
        expect(await sendRaw(h1, hostileAgent)).toBe(200);
        expect(await sendRaw(h1, rawGet('/v6'), '::1')).toBe(200);
        expect(await http2Get(h2, '/h2')).toBe(200);
        expect(await sendRaw(h1, rawGet('/app'))).toBe(200);
        expect(await sendRaw(h1, rawGet('/dead'))).toBe(502);
        // A TLS ClientHello on the plain port: nginx logs its bytes as \x escapes, status 400.
        expect(await sendRaw(h1, Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00]))).toBe(400);
        // A blank line and then nothing: closed unanswered at client_header_timeout, logged 408 with "".
        expect(await sendRaw(h1, '\r\n')).toBeNull();
      }),
    );
    for (const log of LOGS) {
      for (let i = 0; i < 100; i++) {
        const text = await readFile(join(dir, log.file), 'latin1').catch(() => '');
        if (text.split('\n').length > LINES_PER_LOG) break;
        await sleep(100);
      }
      await writeFile(join(copies, log.file), await readFile(join(dir, log.file)));
    }
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await app?.close();
    for (const path of [dir, copies]) if (path) await rm(path, { recursive: true, force: true });
  });

  it.each(LOGS)('$preset, from a copy no nginx names: detected, every line counted', async (log) => {
    const { code, summary, stderr } = await statsJson([join(copies, log.file)]);
    expect(code, stderr).toBe(0);
    expect(summary.format).toBe(log.preset);
    expect(summary.formatSource).toMatch(/^detected: parses 11 of the first 11 lines/);
    expect(stderr).toContain(`proxyops: format ${log.preset} (detected`);
    expect(summary.records).toBe(LINES_PER_LOG);
    expect(summary.malformed.count).toBe(0);
    expect(summary.status).toEqual(EXPECTED_STATUS);
  });

  it.each(LOGS)('$preset, the live file: the running nginx names the format', async (log) => {
    const { code, summary } = await statsJson([join(dir, log.file)]);
    expect(code).toBe(0);
    expect(summary.formatSource).toMatch(
      /^running nginx \(pid \d+\): access_log at .*nginx\.conf:\d+, log_format /,
    );
    expect(summary.format).toBe(log.format || 'combined');
    expect(summary.records).toBe(LINES_PER_LOG);
    expect(summary.status).toEqual(EXPECTED_STATUS);
  });

  it('the proxyops format splits who made each response; the others say the split is unknown', async () => {
    const proxyops = (await statsJson([join(copies, 'proxyops.log')])).summary;
    expect(proxyops.proxyGenerated).toEqual({
      total: 10,
      status: { '200': 6, '400': 1, '404': 1, '408': 1, '502': 1 },
    });
    expect(proxyops.upstreamReturned).toEqual({ total: 1, status: { '200': 1 } });
    expect(proxyops.unknown).toEqual([]);

    const ingress = (await statsJson([join(copies, 'ingress.log')])).summary;
    expect(ingress.proxyGenerated).toBeNull();
    expect(ingress.ratios.proxy5xx).toBeNull();
    expect(ingress.upstreamStatus).toEqual({ '200': 1, '502': 1, '-': 9 });
    expect(ingress.unknown.map((u) => u.figure)).toEqual(['proxy-generated vs upstream-returned split']);

    const combined = await runCli(['logs', 'stats', join(copies, 'combined.log')]);
    expect(combined.stdout).toContain(
      'proxy-generated vs upstream-returned split: needs $upstream_header_time',
    );
    expect(combined.stdout).toMatch(/to log them all: log_format proxyops '.*\$upstream_header_time/);
    const json = (await runCli(['logs', 'stats', '--json', join(copies, 'json.log')])).stdout;
    expect((JSON.parse(json) as StatsSummary).unknown.map((u) => u.figure)).toEqual([
      'proxy-generated vs upstream-returned split',
      'upstream statuses and per-upstream figures',
    ]);
  });

  it('lines cut short and a "-" request line: counted exactly', async () => {
    const lines = (await readFile(join(copies, 'combined.log'), 'latin1')).trimEnd().split('\n');
    const dash = lines[0]!.replace(/"GET \/a HTTP\/1\.1" 200 3/, '"-" 400 0');
    const cut = [
      ...lines.slice(0, 4),
      lines[4]!.slice(0, 40),
      dash,
      ...lines.slice(4),
      lines[5]!.slice(0, 25),
    ];
    const path = join(copies, 'cut.log');
    await writeFile(path, cut.join('\n'), 'latin1');
    const { code, summary } = await statsJson([path]);
    expect(code).toBe(0);
    expect(summary.format).toBe('combined');
    expect(summary.records).toBe(LINES_PER_LOG + 1);
    expect(summary.malformed.count).toBe(2);
    expect(summary.status).toEqual({ ...EXPECTED_STATUS, '400': 2 });
  });

  it('standard input is detected too, and read whole', async () => {
    const { Readable } = await import('node:stream');
    const { runLogsStatsCommand } = await import('../../../proxy-config/logs/logs-stats-command.js');
    let out = '';
    let err = '';
    const code = await runLogsStatsCommand(
      ['-'],
      { json: true },
      {
        stdout: { write: (t: string) => (out += t) },
        stderr: { write: (t: string) => (err += t) },
        stdin: Readable.from([await readFile(join(copies, 'ingress.log'))]),
        env: {},
      },
    );
    expect(code).toBe(0);
    expect(err).toContain('format ingress-nginx (detected');
    expect((JSON.parse(out) as StatsSummary).records).toBe(LINES_PER_LOG);
  });

  it('a file that is no access log (TLS bytes, binary, shell output) exits 2 naming the closest format', async () => {
    const path = join(copies, 'not-a-log.txt');
    const shell = [
      'total 48',
      'drwxr-xr-x  2 root root 4096 Nov 21 10:00 .',
      '-rw-r--r--  1 root root  220 Nov 21 10:00 .bashrc',
      '$ curl -sS http://127.0.0.1/',
      'curl: (7) Failed to connect to 127.0.0.1 port 80: Connection refused',
    ].join('\n');
    await writeFile(
      path,
      Buffer.concat([
        Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x0a]),
        Buffer.from(shell),
      ]),
    );
    const run = await runCli(['logs', 'stats', path]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/most of the first 6 lines match no known log format/);
    expect(run.stderr).toContain('a line not matched:');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);

    const mixed = join(copies, 'mostly-shell.log');
    const oneLine = (await readFile(join(copies, 'combined.log'), 'latin1')).split('\n')[0]!;
    await writeFile(mixed, [oneLine, ...shell.split('\n')].join('\n'));
    const near = await runCli(['logs', 'stats', mixed]);
    expect(near.code).toBe(2);
    expect(near.stderr).toMatch(
      /closest known format: combined \(1 of 6 lines\), select it with --preset combined/,
    );

    // A named format that fits no line is the same error, never "0 records" and exit 0.
    const given = await runCli(['logs', 'stats', '--preset', 'proxyops', join(copies, 'common.log')]);
    expect(given.code).toBe(2);
    expect(given.stderr).toMatch(
      /: 11 of 11 lines do not match format proxyops; closest known format: common \(parses 11 of the first 11 lines\)/,
    );
  });
});
