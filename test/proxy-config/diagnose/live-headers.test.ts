import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { expectTopFinding, sourcesOf, startScriptedApp } from './live-helpers.js';

describe('diagnose redirect-loop and stale-html against a live nginx', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('forwarded-proto-missing: the app behind TLS redirects to http because nginx does not forward the scheme', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'proxyops-tls-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const [cert, key] = [join(dir, 'cert.pem'), join(dir, 'key.pem')];
    await execa('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    // Like most frameworks: absolute redirects built from X-Forwarded-Proto, http when it is absent.
    const app = await startScriptedApp((req, res) => {
      const proto = req.headers['x-forwarded-proto'] ?? 'http';
      res.writeHead(302, { location: `${String(proto)}://${req.headers.host ?? ''}/login` });
      res.end();
    });
    cleanups.push(() => app.close());
    const port = await freePort();
    const server = (forwardProto: string) => `
      server {
        listen 127.0.0.1:${port} ssl;
        ssl_certificate ${cert};
        ssl_certificate_key ${key};
        location / {
          proxy_pass http://127.0.0.1:${app.port};
          proxy_set_header Host $http_host;
          ${forwardProto}
        }
      }`;
    const nginx: LiveNginx = await startLiveNginx(server(''));
    cleanups.push(() => nginx.stop());
    const url = `https://127.0.0.1:${port}/account`;

    const { config } = sourcesOf(nginx);
    const result = await diagnose({ symptom: 'redirect-loop', config, url, insecure: true });
    const evidence = expectTopFinding(result, 'forwarded-proto-missing');
    expect(evidence).toContain(`probe: HEAD ${url} → 302 Location: http://127.0.0.1:${port}/login`);
    expect(evidence).toMatch(
      /config: .* location \/ proxies to http:\/\/127\.0\.0\.1:\d+ without proxy_set_header X-Forwarded-Proto/,
    );

    await nginx.reload(server('proxy_set_header X-Forwarded-Proto $scheme;'));
    expect((await diagnose({ symptom: 'redirect-loop', config, url, insecure: true })).findings).toEqual([]);
  });

  it('html-cached: HTML is served with a long max-age', async () => {
    const port = await freePort();
    const root = await mkdtemp(join(tmpdir(), 'proxyops-html-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    await chmod(root, 0o755); // workers run as nobody
    await writeFile(join(root, 'index.html'), '<!doctype html><title>v1</title>\n', { mode: 0o644 });
    const server = (cacheControl: string) => `
      server {
        listen 127.0.0.1:${port};
        root ${root};
        location / { add_header Cache-Control "${cacheControl}"; }
      }`;
    const nginx = await startLiveNginx(server('public, max-age=3600'));
    cleanups.push(() => nginx.stop());
    const url = `http://127.0.0.1:${port}/`;

    const evidence = expectTopFinding(await diagnose({ symptom: 'stale-html', url }), 'html-cached');
    expect(evidence).toContain(`probe: GET ${url} → 200 text/html, Cache-Control: public, max-age=3600`);

    await nginx.reload(server('no-cache'));
    expect((await diagnose({ symptom: 'stale-html', url })).findings).toEqual([]);
  });
});
