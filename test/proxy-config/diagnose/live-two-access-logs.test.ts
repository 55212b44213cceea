import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPSTREAM_TIME_LOG_FORMAT } from '../../../proxy-config/core/logs/log-format-presets.js';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';
import { expectTopFinding, waitForLines } from './live-helpers.js';

describe('diagnose on a server with two access_log lines writing the same requests', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;

  beforeAll(async () => {
    app = await startUpstreamApp();
    const port = await freePort();
    // The common set-up: one combined log, and one timed log (the nginx blog's upstream_time, no address).
    nginx = await startLiveNginx(`
      log_format upstream_time '${UPSTREAM_TIME_LOG_FORMAT}';
      server {
        listen 127.0.0.1:${port};
        access_log logs/combined.log;
        access_log logs/timed.log upstream_time;
        proxy_read_timeout 1s;
        location / { proxy_pass http://127.0.0.1:${app.port}; }
      }`);
    const statuses = await Promise.all(
      [1, 2].map(() => fetch(`http://127.0.0.1:${port}/slow?ms=1600`).then((r) => r.status)),
    );
    expect(statuses).toEqual([504, 504]);
    await waitForLines(join(nginx.prefix, 'logs', 'combined.log'), 2);
    await waitForLines(join(nginx.prefix, 'logs', 'timed.log'), 2);
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await app?.close();
  });

  it('counts each request once, from the log that tells the most, and says which log it left out', async () => {
    const result = await diagnose({ symptom: '504', pidFile: join(nginx.prefix, 'nginx.pid') });
    const evidence = expectTopFinding(result, 'upstream-read-timeout');
    expect(evidence).toMatch(
      /^access log: 2 of 2 504s produced by nginx after connecting; request time median 1\.\d{3} s$/m,
    );
    // The timed log logs no $upstream_addr: no empty "(upstreams )".
    expect(evidence).not.toContain('upstreams');
    const sources = result.sources.join('\n');
    expect(sources).toMatch(
      /access log \S+\/logs\/combined\.log \(\S+:\d+\) not read: it writes the same requests as \S+\/logs\/timed\.log/,
    );
    expect(sources).toMatch(/access log \S+\/logs\/timed\.log \(2 records; format upstream_time/);
  });
});
