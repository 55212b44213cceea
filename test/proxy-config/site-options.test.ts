import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalNginx, type NginxTarget } from '../../proxy-config/shell/nginx/nginx-process.js';
import { startAppliedNginx } from '../support/live-nginx.js';
import { freePort } from '../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../support/upstream-app.js';
import { makeCertificate } from './helpers/make-certificate.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

describe('spec options for the internet, through a live nginx', () => {
  let root: string;
  let runtime: string;
  let app: UpstreamApp;
  let plainPort: number;
  let tlsPort: number;
  let nginx: NginxTarget;

  const send = (tls: boolean, path: string, headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const options = {
        host: '127.0.0.1',
        port: tls ? tlsPort : plainPort,
        path,
        headers: { host: 'localhost', ...headers },
        agent: false,
      };
      const done = (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      };
      const req = tls
        ? httpsRequest({ ...options, rejectUnauthorized: false, servername: 'localhost' }, done)
        : httpRequest(options, done);
      req.on('error', reject);
      req.end();
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-site-'));
    await chmod(root, 0o755);
    runtime = join(root, 'run');
    await mkdir(join(runtime, 'logs'), { recursive: true, mode: 0o755 });
    await mkdir(join(runtime, 'temp'), { recursive: true, mode: 0o755 });
    const cert = await makeCertificate(root, 'localhost', 30);
    app = await startUpstreamApp();
    plainPort = await freePort();
    tlsPort = await freePort();
    const deadPort = await freePort();
    const spec = {
      version: 1,
      layerName: 'site-test',
      paths: { pidFile: join(runtime, 'nginx.pid'), tempDir: join(runtime, 'temp') },
      workers: { processes: 1, connections: 256, rlimitNofile: 1024 },
      accessLog: { path: join(runtime, 'logs', 'access.log'), buffer: null },
      errorLog: { path: join(runtime, 'logs', 'error.log') },
      security: { hsts: { maxAge: 600, includeSubDomains: true } },
      gzip: { enabled: true, types: ['application/json'], minLength: 0 },
      trustedProxies: { addresses: ['127.0.0.1'], header: 'X-Forwarded-For' },
      upstreams: {
        app: { servers: [{ host: '127.0.0.1', port: app.port, maxFails: 0 }], keepalive: 4 },
        gone: { servers: [{ host: '127.0.0.1', port: deadPort, maxFails: 0 }] },
      },
      servers: [
        {
          names: ['localhost'],
          listen: [
            { address: '127.0.0.1', port: plainPort },
            { address: '127.0.0.1', port: tlsPort, tls: true },
          ],
          redirectToHttps: true,
          tls: cert,
          snippets: ['add_trailer X-Snippet yes'],
          routes: [
            { path: '/', upstream: 'app' },
            { path: '/gone/', upstream: 'gone' },
            { path: '/limited', upstream: 'app', rateLimit: { rate: '1r/m', burst: 0 } },
            { path: '/hold', upstream: 'app', connectionLimit: 2 },
          ],
        },
        {
          // Serves plain HTTP itself (no redirect) as well as TLS.
          names: ['mixed.localhost'],
          listen: [
            { address: '127.0.0.1', port: plainPort },
            { address: '127.0.0.1', port: tlsPort, tls: true },
          ],
          tls: cert,
          routes: [{ path: '/', upstream: 'app' }],
        },
      ],
    };
    nginx = await startAppliedNginx(root, runtime, spec);
  });

  afterAll(async () => {
    if (nginx) await signalNginx(nginx, 'stop').catch(() => undefined);
    await app?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('HSTS and the hardening headers hold on an nginx-made 502 too', async () => {
    const ok = await send(true, '/echo');
    expect(ok.status).toBe(200);
    const failed = await send(true, '/gone/x');
    expect(failed.status).toBe(502);
    for (const answer of [ok, failed]) {
      expect(answer.headers['strict-transport-security']).toBe('max-age=600; includeSubDomains');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['x-frame-options']).toBe('DENY');
    }
    // HSTS only over TLS: a browser ignores it on plain HTTP, and it would only mislead.
    expect((await send(false, '/echo')).headers['strict-transport-security']).toBeUndefined();
  });

  it("the app's own hardening headers give way to the proxy's: one value each", async () => {
    const own =
      '/headers?X-Frame-Options=SAMEORIGIN&Referrer-Policy=no-referrer' +
      '&X-Content-Type-Options=nosniff&Strict-Transport-Security=max-age%3D60';
    const answer = await send(true, own);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['strict-transport-security']).toBe('max-age=600; includeSubDomains');
  });

  it('a server that also answers plain HTTP sends HSTS over TLS only (RFC 6797 7.2)', async () => {
    const host = { host: 'mixed.localhost' };
    const overTls = await send(true, '/echo', host);
    const plain = await send(false, '/echo', host);
    expect([overTls.status, plain.status]).toEqual([200, 200]);
    expect(overTls.headers['strict-transport-security']).toBe('max-age=600; includeSubDomains');
    expect(plain.headers['strict-transport-security']).toBeUndefined();
    expect(plain.headers['x-content-type-options']).toBe('nosniff');
  });

  it('the HTTPS redirect keeps a TLS port other than 443', async () => {
    const redirect = await send(false, '/a/b?c=1');
    expect(redirect.status).toBe(301);
    expect(redirect.headers.location).toBe(`https://localhost:${tlsPort}/a/b?c=1`);
  });

  it('a route over its rate limit answers 429 with Retry-After until its next slot, as a problem document', async () => {
    expect((await send(true, '/limited')).status).toBe(200);
    const limited = await send(true, '/limited');
    expect(limited.status).toBe(429);
    // 1r/m frees a slot a minute later: a client told 1 s would only be refused again.
    expect(limited.headers['retry-after']).toBe('60');
    expect(JSON.parse(limited.body.toString('utf8'))).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
  });

  it('a route over its connection limit answers 429 with Retry-After while the ones within it are served', async () => {
    // The upstream holds /hold open until released, so exactly two connections are in flight.
    const within = [send(true, '/hold'), send(true, '/hold')];
    await expect.poll(() => app.held(), { timeout: 10_000 }).toBe(2);
    const over = await send(true, '/hold');
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('1');
    expect(over.headers['content-type']).toBe('application/problem+json');
    const problem = JSON.parse(over.body.toString('utf8')) as Record<string, unknown>;
    expect(problem).toMatchObject({ status: 429, code: 'RATE_LIMITED', layer: 'site-test' });
    expect(problem.requestId).toBe(over.headers['x-request-id']);
    expect(app.held()).toBe(2);
    app.release();
    for (const answer of await Promise.all(within)) expect(answer.status).toBe(200);
    // The slots are free again once those two are done.
    expect((await send(true, '/hold/after')).status).toBe(200);
  });

  it('the client address from a trusted balancer reaches the app and the log', async () => {
    await send(true, '/echo', { 'x-forwarded-for': '198.51.100.1, 203.0.113.7' });
    const seen = app.seen.at(-1)!.headers;
    expect(seen['x-real-ip']).toBe('203.0.113.7');
    expect(seen['x-forwarded-for']).toBe('203.0.113.7');
    await expect
      .poll(() => readFile(join(runtime, 'logs', 'access.log'), 'utf8'), { timeout: 10_000 })
      .toMatch(/^203\.0\.113\.7 /m);
  });

  it('JSON is compressed for a client that accepts gzip, and served over HTTP/2-capable TLS', async () => {
    const zipped = await send(true, '/echo', { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(zipped.body).toString('utf8'))).toMatchObject({ method: 'GET' });
  });
});
