import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveNginx, type LiveNginx } from './live-nginx.js';
import { freePort } from './ports.js';
import { startUpstreamApp, type UpstreamApp } from './upstream-app.js';

describe('live nginx test harness', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  let port: number;

  beforeAll(async () => {
    app = await startUpstreamApp();
    port = await freePort();
    nginx = await startLiveNginx(`
      server {
        listen 127.0.0.1:${port};
        location / { proxy_pass http://127.0.0.1:${app.port}; }
      }`);
  });
  afterAll(async () => {
    await nginx?.stop();
    await app?.close();
  });

  it('proxies to the upstream and logs the request with upstream fields', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/echo`);
    expect(res.status).toBe(200);
    expect(res.headers.get('server')).toMatch(/^nginx/);
    expect(app.seen.at(-1)?.url).toBe('/echo');
    // nginx writes the access log line when the request completes, possibly just after the response.
    await expect
      .poll(() => nginx.readAccessLog(), { timeout: 10_000 })
      .toMatch(new RegExp(`"GET /echo HTTP/1.1" 200 .* ua="127.0.0.1:${app.port}" us="200"`));
  });
});
