import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';
import { sourcesOf, startScriptedApp, waitForLines, type ScriptedApp } from './live-helpers.js';

describe('diagnose 502 ranks causes by what clients saw', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  let crashing: ScriptedApp;

  beforeAll(async () => {
    app = await startUpstreamApp();
    // An instance that dies on every order: the connection closes before any response.
    crashing = await startScriptedApp((req) => req.socket.destroy());
    const stopped = await freePort();
    const port = await freePort();
    // Debian's default: a combined log, which tells neither the upstream nor who made a status.
    nginx = await startLiveNginx(
      `
      upstream web { server 127.0.0.1:${stopped}; server 127.0.0.1:${app.port}; }
      server {
        listen 127.0.0.1:${port};
        location / { proxy_pass http://web; }
        location /orders { proxy_pass http://127.0.0.1:${crashing.port}; }
      }`,
      {
        logFormat:
          '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"',
      },
    );
    // GETs: the stopped instance refuses, nginx retries on the other, clients get 200.
    for (let i = 0; i < 4; i++) expect((await fetch(`http://127.0.0.1:${port}/page/${i}`)).status).toBe(200);
    // POSTs: never retried once sent, so each crash is a 502 for the client.
    for (let i = 0; i < 7; i++)
      expect((await fetch(`http://127.0.0.1:${port}/orders`, { method: 'POST', body: '{}' })).status).toBe(
        502,
      );
    await waitForLines(nginx.accessLog, 11);
    expect(await nginx.readErrorLog()).toMatch(/Connection refused/);
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await crashing?.close();
    await app?.close();
  });

  it('the crash clients saw ranks first; the stopped instance nginx retried past ranks last, at low severity', async () => {
    const result = await diagnose({ symptom: '502', ...sourcesOf(nginx) });
    const ids = result.findings.map((finding) => finding.id);
    expect(ids[0]).toBe('upstream-reset');
    expect(ids).toContain('upstream-refused');
    expect(ids.at(-1)).toBe('upstream-refused');
    const [reset] = result.findings;
    expect(reset?.evidence).toContain('access log: clients saw 7 of the 7 502s from this cause');
    const refused = result.findings.find((finding) => finding.id === 'upstream-refused')!;
    expect(refused.severity).toBe('low');
    expect(refused.evidence).toContain('access log: clients saw none of the 7 502s from this cause');
  });
});
