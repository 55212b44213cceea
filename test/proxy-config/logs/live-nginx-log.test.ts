import { mkdtemp, chmod, readFile, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileLogFormat } from '../../../proxy-config/core/logs/compile-log-format.js';
import { parseLogLine, type LogRecord } from '../../../proxy-config/core/logs/parse-log-line.js';
import {
  PROXYOPS_LOG_FORMAT_JSON,
  PROXYOPS_LOG_FORMAT_TEXT,
} from '../../../proxy-config/core/render/log-formats.js';
import { computeLogStats } from '../../../proxy-config/logs/logs-stats.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

/** Sends raw bytes as one request; resolves with the status code, or null when `abortWhen` closes first. */
function rawRequest(
  port: number,
  request: Buffer | string,
  abortWhen?: Promise<unknown>,
): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m && data.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(null));
    socket.write(request);
    void abortWhen?.then(() => socket.destroy());
  });
}

const get = (path: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n${extra}\r\n`;

describe('parsing the access log of a real nginx', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  let port: number;
  let dead: number;
  let jsonDir: string;
  let started: number;
  const records = new Map<string, LogRecord>();
  const jsonRecords = new Map<string, LogRecord>();

  beforeAll(async () => {
    app = await startUpstreamApp();
    port = await freePort();
    dead = await freePort();
    jsonDir = await mkdtemp(join(tmpdir(), 'proxyops-logs-json-'));
    await chmod(jsonDir, 0o777);
    nginx = await startLiveNginx(
      `
      map $http_x_request_id $proxyops_request_id { default $http_x_request_id; '' $request_id; }
      log_format pj escape=json '${PROXYOPS_LOG_FORMAT_JSON}';
      upstream retry_group { server 127.0.0.1:${dead}; server 127.0.0.1:${app.port}; }
      server {
        listen 127.0.0.1:${port};
        access_log {{accessLog}} main;
        access_log ${jsonDir}/access.json pj;
        client_max_body_size 1k;
        proxy_read_timeout 1s;
        location / { proxy_pass http://127.0.0.1:${app.port}; }
        location /refused { proxy_pass http://127.0.0.1:${dead}; }
        location /retry { proxy_pass http://retry_group; }
      }`,
      { logFormat: PROXYOPS_LOG_FORMAT_TEXT },
    );
    started = Date.now() - 1000;
    const ua = Buffer.from('probe "quoted" \\ \u00fc', 'utf8');
    expect(
      await rawRequest(
        port,
        Buffer.concat([
          Buffer.from(
            'GET /ok?q=a%20b HTTP/1.1\r\nHost: probe\r\nConnection: close\r\nReferer: http://ref.example/x\r\nUser-Agent: ',
          ),
          ua,
          Buffer.from('\r\nX-Request-ID: probe-ok\r\n\r\n'),
        ]),
      ),
    ).toBe(200);
    expect(await rawRequest(port, get('/status/502'))).toBe(502);
    expect(await rawRequest(port, get('/refused'))).toBe(502);
    expect(await rawRequest(port, get('/slow?ms=3000'))).toBe(504);
    const body = 'x'.repeat(4096);
    expect(
      await rawRequest(
        port,
        `POST /upload HTTP/1.1\r\nHost: probe\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ),
    ).toBe(413);
    // Gives up 300 ms after the upstream has the request: a timer started at connect raced a loaded machine.
    const seen = app.seen.length;
    const upstreamHasIt = (async () => {
      for (let i = 0; i < 500 && !app.seen.slice(seen).some((r) => r.url === '/slow?ms=2000'); i++)
        await sleep(20);
      await sleep(300);
    })();
    expect(await rawRequest(port, get('/slow?ms=2000'), upstreamHasIt)).toBeNull();
    expect(await rawRequest(port, get('/retry'))).toBe(200);
    await rawRequest(port, get('/garbage'));

    const compiled = compileLogFormat(PROXYOPS_LOG_FORMAT_TEXT);
    const compiledJson = compileLogFormat(PROXYOPS_LOG_FORMAT_JSON, 'json');
    const lineCount = async (read: () => Promise<string>) => (await read()).trim().split('\n').length;
    const readJson = () => readFile(join(jsonDir, 'access.json'), 'utf8').catch(() => '');
    for (
      let i = 0;
      i < 100 && ((await lineCount(nginx.readAccessLog)) < 8 || (await lineCount(readJson)) < 8);
      i++
    )
      await sleep(100);
    for (const line of (await nginx.readAccessLog()).trim().split('\n')) {
      const record = parseLogLine(compiled, line);
      expect(record, line).not.toBeNull();
      records.set(record!.fields.request!.split(' ')[1]!, record!);
    }
    for (const line of (await readFile(join(jsonDir, 'access.json'), 'utf8')).trim().split('\n')) {
      const record = parseLogLine(compiledJson, line);
      expect(record, line).not.toBeNull();
      jsonRecords.set(record!.fields.request!.split(' ')[1]!, record!);
    }
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await app?.close();
    if (jsonDir) await rm(jsonDir, { recursive: true, force: true });
  });

  const upstream = () => `127.0.0.1:${app.port}`;
  const deadAddr = () => `127.0.0.1:${dead}`;

  for (const variant of ['text (escape=default)', 'json (escape=json)'] as const) {
    const pick = (path: string) => (variant.startsWith('text') ? records : jsonRecords).get(path)!;

    describe(variant, () => {
      it('200: every §4.8 field, escapes decoded', () => {
        const r = pick('/ok?q=a%20b');
        expect(r.remoteAddr).toBe('127.0.0.1');
        expect(r.fields.remote_user).toBe(variant.startsWith('text') ? '-' : '');
        expect(r.time).toBeGreaterThanOrEqual(Math.floor(started / 1000) * 1000);
        expect(r.time).toBeLessThanOrEqual(Date.now());
        expect([r.method, r.path, r.protocol]).toEqual(['GET', '/ok', 'HTTP/1.1']);
        expect(r.fields.request).toBe('GET /ok?q=a%20b HTTP/1.1');
        expect(r.status).toBe(200);
        // The app's 3 bytes "ok\n", sent chunked to the HTTP/1.1 client: 3\r\nok\n\r\n0\r\n\r\n.
        expect(r.bodyBytesSent).toBe(13);
        expect(r.fields.http_referer).toBe('http://ref.example/x');
        expect(r.fields.http_user_agent).toBe('probe "quoted" \\ \u00fc');
        expect(r.requestTime).toBeGreaterThanOrEqual(0);
        expect(r.upstream).toHaveLength(1);
        expect(r.upstream[0]).toMatchObject({ address: upstream(), status: 200 });
        expect(r.upstream[0]!.connectTime).toBeGreaterThanOrEqual(0);
        expect(r.upstream[0]!.headerTime).toBeGreaterThanOrEqual(0);
        expect(r.upstream[0]!.responseTime).toBeGreaterThanOrEqual(0);
        expect(r.requestId).toBe('probe-ok');
        expect(r.proxyGenerated).toBe(false);
      });

      it('the app answered 502 itself: upstream-returned', () => {
        const r = pick('/status/502');
        expect(r.status).toBe(502);
        expect(r.upstream).toHaveLength(1);
        expect(r.upstream[0]!.status).toBe(502);
        expect(r.upstream[0]!.headerTime).not.toBeNull();
        expect(r.requestId).toMatch(/^[0-9a-f]{32}$/);
        expect(r.proxyGenerated).toBe(false);
      });

      it('nothing listening: proxy-generated 502 with no connect or header time', () => {
        const r = pick('/refused');
        expect(r.status).toBe(502);
        expect(r.upstream).toHaveLength(1);
        expect(r.upstream[0]).toMatchObject({
          address: deadAddr(),
          status: 502,
          connectTime: null,
          headerTime: null,
        });
        // "0.000" when idle; a loaded machine may take a millisecond or two to be refused.
        expect(r.upstream[0]!.responseTime).toBeGreaterThanOrEqual(0);
        expect(r.upstream[0]!.responseTime).toBeLessThan(0.5);
        expect(r.proxyGenerated).toBe(true);
      });

      it('upstream slower than proxy_read_timeout: proxy-generated 504', () => {
        const r = pick('/slow?ms=3000');
        expect(r.status).toBe(504);
        expect(r.upstream[0]!.status).toBe(504);
        expect(r.upstream[0]!.connectTime).not.toBeNull();
        expect(r.upstream[0]!.headerTime).toBeNull();
        expect(r.upstream[0]!.responseTime).toBeGreaterThanOrEqual(0.99);
        expect(r.requestTime).toBeGreaterThanOrEqual(0.99);
        expect(r.proxyGenerated).toBe(true);
      });

      it('body over client_max_body_size: 413 with no upstream at all', () => {
        const r = pick('/upload');
        expect(r.status).toBe(413);
        expect(r.method).toBe('POST');
        expect(r.upstream).toEqual([]);
        expect(r.proxyGenerated).toBe(true);
      });

      it('the client gave up: 499 with an upstream address and no upstream status', () => {
        const r = [...(variant.startsWith('text') ? records : jsonRecords).values()].find(
          (x) => x.status === 499,
        )!;
        expect(r.path).toBe('/slow');
        expect(r.upstream).toHaveLength(1);
        expect(r.upstream[0]).toMatchObject({ address: upstream(), status: null, headerTime: null });
        expect(r.upstream[0]!.responseTime).toBeGreaterThanOrEqual(0.2);
        expect(r.proxyGenerated).toBe(true);
      });

      it('a retry: two attempts, the last one final', () => {
        const r = pick('/retry');
        expect(r.status).toBe(200);
        expect(
          r.upstream.map((u) => [u.address, u.status, u.connectTime === null, u.headerTime === null]),
        ).toEqual([
          [deadAddr(), 502, true, true],
          [upstream(), 200, false, false],
        ]);
        expect(r.proxyGenerated).toBe(false);
      });

      it('an upstream that is not HTTP: status 009 is data', () => {
        const r = pick('/garbage');
        expect(r.statusText).toBe('009');
        expect(r.status).toBe(9);
      });
    });
  }

  it('the statistics of that log count each case, text and JSON alike', async () => {
    const dir = join(jsonDir, 'access.json');
    const text = await computeLogStats({
      inputs: [nginx.accessLog],
      spec: { kind: 'format', name: 'proxyops', format: PROXYOPS_LOG_FORMAT_TEXT, escape: 'default' },
    });
    const json = await computeLogStats({
      inputs: [dir],
      spec: { kind: 'format', name: 'proxyops-json', format: PROXYOPS_LOG_FORMAT_JSON, escape: 'json' },
    });
    for (const s of [text, json]) {
      expect(s.malformed.count).toBe(0);
      expect(s.records).toBe(8);
      expect(s.status).toEqual({ '009': 1, '200': 2, '413': 1, '499': 1, '502': 2, '504': 1 });
      expect(s.proxyGenerated).toEqual({ total: 4, status: { '413': 1, '499': 1, '502': 1, '504': 1 } });
      expect(s.upstreamReturned!.status).toEqual({ '009': 1, '200': 2, '502': 1 });
      expect(s.upstreamStatus).toEqual({ '-': 2, '200': 3, '502': 2, '504': 1 });
      expect(s.clientClosed.count).toBe(1);
      expect(s.retriedRequests).toBe(1);
      const dead = s.upstreams.find((u) => u.address === deadAddr())!;
      expect(dead).toMatchObject({ requests: 2, status5xx: 2, proxyGenerated: 2, retries: 1, final: 1 });
      const live = s.upstreams.find((u) => u.address === upstream())!;
      expect(live).toMatchObject({ requests: 6, status5xx: 2, proxyGenerated: 1, retries: 0 });
      expect(live.responseTime.max).toBeGreaterThanOrEqual(0.99);
    }
  });
});
