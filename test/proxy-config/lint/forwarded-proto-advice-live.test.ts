import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

// forwarded-proto-missing's advice, followed as written, with the real nginx: behind a balancer that
// ends TLS (`# proxyops: outer-tls on`) nginx is spoken to over http, so the app must be told https.
describe('the X-Forwarded-Proto advice under outer-tls on, followed, with the real nginx', () => {
  let app: UpstreamApp;
  let nginx: LiveNginx | undefined;
  let port: number;
  const server = (declaration: string, listenPort: number, appPort: number, fix = '') => `
      server {
        listen 127.0.0.1:${listenPort};
        ${declaration}
        location / {
          ${fix}
          proxy_pass http://127.0.0.1:${appPort};
        }
      }`;
  const adviceFor = (text: string) =>
    lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
      .findings.filter((f) => f.ruleId === 'forwarded-proto-missing')
      .map((f) => f.fix);
  /** The directive the advice starts with, as it would be pasted into the location. */
  const directiveOf = (fix: string) => /^proxy_set_header X-Forwarded-Proto [^;]+;/.exec(fix)?.[0] ?? '';

  beforeAll(async () => {
    app = await startUpstreamApp();
    port = await freePort();
  });
  afterAll(async () => {
    await nginx?.stop();
    await app.close();
  });

  it('advises https, not $scheme, and the app then hears https through a plain-http hop', async () => {
    const [fix, ...others] = adviceFor(server('# proxyops: outer-tls on', port, app.port));
    expect(others).toEqual([]);
    expect(fix).toContain('X-Forwarded-Proto https;');
    expect(directiveOf(fix!)).toBe('proxy_set_header X-Forwarded-Proto https;');
    const followed = server('# proxyops: outer-tls on', port, app.port, directiveOf(fix!));
    expect(adviceFor(followed)).toEqual([]);
    nginx = await startLiveNginx(followed);
    // The balancer's hop to nginx is plain http, as after a TLS-terminating balancer.
    const answer = await fetch(`http://127.0.0.1:${port}/echo`);
    const seen = (await answer.json()) as { headers: Record<string, string> };
    expect(seen.headers['x-forwarded-proto']).toBe('https');
  });

  it('keeps $scheme where nginx itself ends TLS', () => {
    const [fix] = adviceFor(
      server('listen 127.0.0.1:8443 ssl; ssl_certificate a.pem; ssl_certificate_key a.key;', port, app.port),
    );
    expect(directiveOf(fix!)).toBe('proxy_set_header X-Forwarded-Proto $scheme;');
  });
});
