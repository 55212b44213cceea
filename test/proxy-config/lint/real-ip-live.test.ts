import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { getOnce } from '../../support/answer-load.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';

// real-ip-from-missing beside what the real nginx makes of the header with and without trusted
// addresses: the client address it answers with.
describe('real_ip_header through the real nginx', () => {
  let nginx: LiveNginx | undefined;
  let port: number;
  const body = (trusted: string) => `
  server {
    listen 127.0.0.1:${port};
    ${trusted}
    real_ip_header X-Real-IP;
    location / { return 200 $remote_addr; }
  }`;
  const fired = (trusted: string) =>
    lintNginxConfig({
      mainFile: 'x.conf',
      files: ['x.conf'],
      directives: parseNginxConfig(`events {}\nhttp {${body(trusted)}\n}`, 'x.conf'),
    }).findings.filter((f) => f.ruleId === 'real-ip-from-missing').length;

  beforeAll(async () => {
    port = await freePort();
  });
  afterAll(async () => {
    await nginx?.stop();
  });

  async function serve(trusted: string): Promise<string> {
    if (nginx) await nginx.reload(body(trusted));
    else nginx = await startLiveNginx(body(trusted));
    // A client claiming to come from 203.0.113.9.
    return (await getOnce(port, '/', { 'X-Real-IP': '203.0.113.9' })).body;
  }

  it('without set_real_ip_from the header is never taken: the rule fires', async () => {
    expect(await serve('')).toBe('127.0.0.1');
    expect(fired('')).toBe(1);
  });

  it('with the proxy trusted the header is taken: quiet', async () => {
    expect(await serve('set_real_ip_from 127.0.0.1;')).toBe('203.0.113.9');
    expect(fired('set_real_ip_from 127.0.0.1;')).toBe(0);
  });
});
