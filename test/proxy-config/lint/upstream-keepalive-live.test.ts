import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { getOnce } from '../../support/answer-load.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

// upstream-keepalive-headers on the Connection values published configs send on plain requests,
// beside what the real nginx does with its keep-alive pool: how many upstream connections carry
// five requests in a row.
describe('upstream keep-alive through the real nginx, by the Connection header sent', () => {
  let app: UpstreamApp;
  let nginx: LiveNginx | undefined;
  let port: number;
  const body = (connection: string) => `
  upstream app { server 127.0.0.1:${app.port}; keepalive 8; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection ${connection};
    }
  }`;

  beforeAll(async () => {
    app = await startUpstreamApp();
    port = await freePort();
  });
  afterAll(async () => {
    await nginx?.stop();
    await app.close();
  });

  async function connectionsFor(connection: string): Promise<number> {
    if (nginx) await nginx.reload(body(connection));
    else nginx = await startLiveNginx(body(connection));
    const before = app.seen.length;
    for (let i = 0; i < 5; i++) expect((await getOnce(port, `/n${i}`)).status).toBe(200);
    return new Set(app.seen.slice(before).map((s) => s.remotePort)).size;
  }

  const fired = (connection: string) =>
    lintNginxConfig({
      mainFile: 'x.conf',
      files: ['x.conf'],
      directives: parseNginxConfig(`http {${body(connection)}\n}`, 'x.conf'),
    }).findings.filter((f) => f.ruleId === 'upstream-keepalive-headers').length;

  it('"Upgrade" on a plain request (Frigate, Superset) keeps the pool in use: quiet', async () => {
    expect(await connectionsFor('"Upgrade"')).toBe(1);
    expect(fired('"Upgrade"')).toBe(0);
  });

  it('"close" opens a connection per request: the rule fires', async () => {
    expect(await connectionsFor('"close"')).toBe(5);
    expect(fired('"close"')).toBe(1);
  });
});
