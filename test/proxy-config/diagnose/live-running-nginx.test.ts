import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatsSummary } from '../../../proxy-config/core/logs/summarize-stats.js';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { readLiveMasterPid } from '../../../proxy-config/shell/nginx/nginx-master.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { rawGet, sendRaw } from '../../support/raw-traffic.js';
import { runCli } from '../../support/run-cli.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';
import { waitForLines } from './live-helpers.js';

/** A format of the user's own, known to no preset: only the running nginx's config can tell how to read it. */
const CUSTOM_FORMAT =
  '$time_iso8601|$remote_addr|"$request"|$status|$request_time|ua=$upstream_addr|us=$upstream_status|' +
  'uct=$upstream_connect_time|uht=$upstream_header_time|"$http_user_agent"';

describe('a running nginx with its own log_format: logs stats and diagnose with no file flags', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  let port: number;
  let pidFile: string;

  beforeAll(async () => {
    app = await startUpstreamApp();
    const dead = await freePort();
    port = await freePort();
    nginx = await startLiveNginx(
      `
      server {
        listen 127.0.0.1:${port};
        location / { proxy_pass http://127.0.0.1:${app.port}; }
        location /dead { proxy_pass http://127.0.0.1:${dead}; }
      }`,
      { logFormat: CUSTOM_FORMAT },
    );
    pidFile = join(nginx.prefix, 'nginx.pid');
    for (let i = 0; i < 5; i++) expect(await sendRaw(port, rawGet('/dead'))).toBe(502);
    for (let i = 0; i < 3; i++) expect(await sendRaw(port, rawGet('/ok'))).toBe(200);
    expect(await sendRaw(port, rawGet('/status/502'))).toBe(502);
    await waitForLines(nginx.accessLog, 9);
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await app?.close();
  });

  it('logs stats FILE reads the format from the running nginx and splits who made the 502s', async () => {
    const run = await runCli(['logs', 'stats', '--json', nginx.accessLog]);
    expect(run.code, run.stderr).toBe(0);
    const summary = JSON.parse(run.stdout) as StatsSummary;
    expect(summary.formatSource).toMatch(
      /^running nginx \(pid \d+\): access_log at .*nginx\.conf:\d+, log_format main$/,
    );
    expect(run.stderr).toMatch(/^proxyops: format main \(running nginx/);
    expect(summary.malformed.count).toBe(0);
    expect(summary.proxyGenerated).toEqual({ total: 5, status: { '502': 5 } });
    expect(summary.upstreamReturned).toEqual({ total: 4, status: { '200': 3, '502': 1 } });
    expect(summary.unknown).toEqual([]);
  });

  it('diagnose 502 with no file flags ranks the refused upstream first; its own probes stay out of the logs read', async () => {
    // Other nginx masters may run on a shared machine: --pid-file picks this one (with one master, nothing is needed).
    const probed = await diagnose({ symptom: '502', pidFile, url: `http://127.0.0.1:${port}/dead` });
    expect(probed.findings[0]?.id).toBe('upstream-refused');
    await waitForLines(nginx.accessLog, 11);
    expect(await readFile(nginx.accessLog, 'utf8')).toMatch(/"proxyops-probe\/0\.1\.0"/);

    const run = await runCli(['diagnose', '502', '--pid-file', pidFile, '--json']);
    const result = JSON.parse(run.stdout) as {
      sources: string[];
      findings: Array<{ id: string; evidence: string[] }>;
    };
    expect(result.findings[0]?.id).toBe('upstream-refused');
    expect(result.findings[0]?.evidence.join('\n')).toMatch(/5 of 6 502s produced by nginx/);
    expect(result.sources[0]).toMatch(/^running nginx pid \d+ \(\/usr\/sbin\/nginx -p /);
    expect(result.sources).toContainEqual(
      expect.stringMatching(
        /^access log .*access\.log \(9 records; format main; 2 proxyops probe lines left out\)$/,
      ),
    );
    expect(result.sources).toContainEqual(
      expect.stringMatching(/^error log .*error\.log \(\d+ recognised lines\)$/),
    );
  });

  it('the same diagnosis from gzipped rotated copies, read back as far as --since reaches', async () => {
    for (const log of [nginx.accessLog, nginx.errorLog]) {
      await writeFile(`${log}.1.gz`, gzipSync(await readFile(log)));
      await rm(log);
    }
    const master = await readLiveMasterPid(pidFile);
    process.kill(master!, 'SIGUSR1');
    for (let i = 0; i < 200 && (await readFile(nginx.accessLog).catch(() => null)) === null; i++)
      await sleep(25);

    const now = await diagnose({ symptom: '502', pidFile });
    expect(now.findings.map((f) => f.id)).not.toContain('upstream-refused');
    const back = await diagnose({ symptom: '502', pidFile, since: '1h' });
    expect(back.findings[0]?.id).toBe('upstream-refused');
    expect(back.findings[0]?.evidence.join('\n')).toMatch(/5 of 6 502s produced by nginx/);
    expect(back.sources).toContainEqual(
      expect.stringMatching(/^access log .*access\.log\.1\.gz \+ .*access\.log \(9 records; format main/),
    );
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const iso = await diagnose({ symptom: '502', pidFile, since });
    expect(iso.findings[0]?.id).toBe('upstream-refused');

    const stats = await runCli(['logs', 'stats', '--json', `${nginx.accessLog}.1.gz`]);
    const summary = JSON.parse(stats.stdout) as StatsSummary;
    expect(summary.formatSource).toMatch(/^running nginx/);
    // logs stats counts every request nginx served, the two probes to /dead included.
    expect(summary.proxyGenerated?.status).toEqual({ '502': 7 });
  });

  it('diagnose --url sends no body without --probe-writes, and marks every probe', async () => {
    const before = app.seen.length;
    const safe = await diagnose({ symptom: '413', pidFile, url: `http://127.0.0.1:${port}/upload` });
    const seen = app.seen.slice(before);
    expect(seen.map((r) => r.method).sort()).toEqual(['GET', 'HEAD']);
    for (const request of seen) {
      expect(request.headers['content-length'] ?? '0').toBe('0');
      expect(request.headers['transfer-encoding']).toBeUndefined();
      expect(request.headers['user-agent']).toBe('proxyops-probe/0.1.0');
      expect(request.headers['x-proxyops-probe']).toBe('1');
    }
    expect(safe.sources).toContain(
      'missing: body-limit probe (it sends POST bodies to the URL); add --probe-writes to run it',
    );

    const writes = app.seen.length;
    await diagnose({ symptom: '413', pidFile, url: `http://127.0.0.1:${port}/upload`, probeWrites: true });
    expect(app.seen.slice(writes).some((r) => r.method === 'POST')).toBe(true);
  });
});
