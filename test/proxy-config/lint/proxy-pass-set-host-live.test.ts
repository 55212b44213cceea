import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

// Why proxy-pass-ssrf reads `proxy_pass http://$u;` on the value `set` gives $u: nginx splits the
// whole evaluated URL at its first "/", so a path capture after a fixed host:port/ stays in the
// path, while a capture at the start of the value is the host.
describe('proxy_pass http://$u with $u from set, with the real nginx', () => {
  let app: UpstreamApp;
  let nginx: LiveNginx | undefined;
  let port: number;
  const server = (appPort: number, listenPort: number) => `
      server {
        listen 127.0.0.1:${listenPort};
        location ~ ^/open/(.*)$ { set $u $1; proxy_pass http://$u; }
        location ~ /(.*)$ { set $u 127.0.0.1:${appPort}/hooks/$1; proxy_pass http://$u; }
      }`;

  beforeAll(async () => {
    app = await startUpstreamApp();
    port = await freePort();
    nginx = await startLiveNginx(server(app.port, port));
  });
  afterAll(async () => {
    await nginx?.stop();
    await app.close();
  });

  const seenFor = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    await response.text();
    const seen = app.seen.at(-1);
    return { status: response.status, url: seen?.url, host: seen?.headers.host };
  };

  it('sends a capture after the fixed host:port/ in the path, to the fixed host', async () => {
    expect(await seenFor('/10.0.0.1:80/x')).toEqual({
      status: 200,
      url: '/hooks/10.0.0.1:80/x',
      host: `127.0.0.1:${app.port}`,
    });
  });

  it('lets the client name the host when the capture starts the value', async () => {
    expect(await seenFor(`/open/127.0.0.1:${app.port}/chosen`)).toEqual({
      status: 200,
      url: '/chosen',
      host: `127.0.0.1:${app.port}`,
    });
  });

  it('is what proxy-pass-ssrf says of the same server', () => {
    const text = `events {} http { ${server(9000, 8080)} }`;
    const findings = lintNginxConfig({
      mainFile: 'x.conf',
      files: ['x.conf'],
      directives: parseNginxConfig(text, 'x.conf'),
    }).findings.filter((f) => f.ruleId === 'proxy-pass-ssrf');
    expect(findings.map((f) => `${f.line}: ${f.what}`)).toEqual([
      '4: proxy_pass http://$u: $1 of location ~ ^/open/(.*)$ names the host',
    ]);
  });
});
