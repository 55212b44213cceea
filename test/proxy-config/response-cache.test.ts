import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalNginx, type NginxTarget } from '../../proxy-config/shell/nginx/nginx-process.js';
import { startAppliedNginx } from '../support/live-nginx.js';
import { validateConfigFile } from '../../proxy-config/config/validate-config.js';
import { freePort } from '../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../support/upstream-app.js';
import { makeCertificate } from './helpers/make-certificate.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/** The upstream's `/headers` answer: `n` numbers the requests the app saw, so a cached body repeats it. */
interface Echo {
  n: number;
  headers: Record<string, string>;
}

/** `/headers` with the given response headers, under a query that makes the URI unique to a test. */
const respond = (tag: string, headers: Record<string, string>) =>
  `/headers?${new URLSearchParams({ tag, ...headers }).toString()}`;

const CACHEABLE = { 'Cache-Control': 'public, max-age=300' };

describe('the response cache of a route, through a live nginx', () => {
  let root: string;
  let app: UpstreamApp;
  /** A second upstream the stale-if-error test stops. */
  let fragile: UpstreamApp;
  let plainPort: number;
  let tlsPort: number;
  let nginx: NginxTarget;

  const send = (
    path: string,
    {
      tls = false,
      host = 'localhost',
      headers = {},
    }: { tls?: boolean; host?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const options = {
        host: '127.0.0.1',
        port: tls ? tlsPort : plainPort,
        path,
        headers: { host, ...headers },
        agent: false,
      };
      const done = (res: IncomingMessage) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, body }),
        );
      };
      const req = tls
        ? httpsRequest({ ...options, rejectUnauthorized: false, servername: host }, done)
        : httpRequest(options, done);
      req.on('error', reject);
      req.end();
    });

  /** Every Age header of an answer (Node keeps only the first in `headers`). */
  const ages = (answer: Answer) =>
    answer.rawHeaders.filter((_, i) => i % 2 === 0 && answer.rawHeaders[i]!.toLowerCase() === 'age').length;
  const echo = (answer: Answer) => JSON.parse(answer.body) as Echo;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-cache-'));
    await chmod(root, 0o755);
    const runtime = join(root, 'run');
    await mkdir(join(runtime, 'logs'), { recursive: true, mode: 0o755 });
    await mkdir(join(runtime, 'temp'), { recursive: true, mode: 0o755 });
    const cert = await makeCertificate(root, 'localhost', 30);
    app = await startUpstreamApp();
    fragile = await startUpstreamApp();
    plainPort = await freePort();
    tlsPort = await freePort();
    const spec = {
      version: 1,
      layerName: 'cache-test',
      paths: { pidFile: join(runtime, 'nginx.pid'), tempDir: join(runtime, 'temp') },
      workers: { processes: 1, connections: 256, rlimitNofile: 1024 },
      accessLog: { path: join(runtime, 'logs', 'access.log'), buffer: null },
      errorLog: { path: join(runtime, 'logs', 'error.log') },
      cache: { maxSize: '16m', keysZone: '1m', inactive: 600 },
      upstreams: {
        app: { servers: [{ host: '127.0.0.1', port: app.port, maxFails: 0 }], keepalive: 4 },
        fragile: { servers: [{ host: '127.0.0.1', port: fragile.port, maxFails: 0 }] },
      },
      servers: [
        {
          names: ['localhost', 'alt.localhost'],
          listen: [
            { address: '127.0.0.1', port: plainPort },
            { address: '127.0.0.1', port: tlsPort, tls: true },
          ],
          tls: cert,
          routes: [
            { path: '/', upstream: 'app' },
            { path: '/headers', upstream: 'app', cache: true },
            { path: '/fragile/', upstream: 'fragile', cache: true },
          ],
        },
      ],
    };
    nginx = await startAppliedNginx(root, runtime, spec);
  });

  afterAll(async () => {
    if (nginx) await signalNginx(nginx, 'stop').catch(() => undefined);
    await app?.close();
    await fragile?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('installs the njs script next to nginx.conf, which loads it only because a route caches', async () => {
    const files = await readdir(join(root, 'conf', 'current'));
    expect(files).toEqual(expect.arrayContaining(['nginx.conf', 'proxyops-cache-age.js']));
  });

  it('a first answer comes from the app without Age; later ones from the cache with an Age that grows', async () => {
    const path = respond('grows', CACHEABLE);
    const before = app.seen.length;
    const miss = await send(path);
    expect(miss.status).toBe(200);
    expect(miss.headers.age).toBeUndefined();
    expect(app.seen.length).toBe(before + 1);

    const hit = await send(path);
    expect(hit.status).toBe(200);
    expect(hit.headers.age).toMatch(/^\d+$/);
    expect(ages(hit)).toBe(1);
    expect(echo(hit).n).toBe(echo(miss).n);
    expect(hit.headers['cache-control']).toBe('public, max-age=300');
    const first = Number(hit.headers.age);

    // Age counts seconds since the answer was stored: ask again until a second has passed.
    await expect
      .poll(async () => Number((await send(path)).headers.age), { timeout: 10_000, interval: 250 })
      .toBeGreaterThan(first);
    expect(app.seen.length).toBe(before + 1);
  });

  it.each([
    ['no-cache', { 'Cache-Control': 'no-cache' }],
    ['private', { 'Cache-Control': 'private, max-age=300' }],
    ['no-store', { 'Cache-Control': 'no-store' }],
    ['Set-Cookie', { ...CACHEABLE, 'Set-Cookie': 'session=abc; HttpOnly' }],
    ['no freshness at all', {}],
  ])('an answer marked %s is never served from the cache', async (tag, headers) => {
    const path = respond(`not-${tag}`, headers);
    const first = await send(path);
    const second = await send(path);
    expect(echo(second).n).toBeGreaterThan(echo(first).n);
    for (const answer of [first, second]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.age).toBeUndefined();
    }
  });

  it('a request with credentials neither fills the cache nor is answered from it', async () => {
    const path = respond('authorized', CACHEABLE);
    const credentials = { authorization: 'Bearer secret' };
    const withCredentials = await send(path, { headers: credentials });
    const without = await send(path);
    expect(echo(without).n).toBeGreaterThan(echo(withCredentials).n);
    const cached = await send(path);
    expect(echo(cached).n).toBe(echo(without).n);
    const again = await send(path, { headers: credentials });
    expect(echo(again).n).toBeGreaterThan(echo(without).n);
    expect(again.headers.age).toBeUndefined();
  });

  it('the key holds the host and the scheme the app was told: each gets its own entry', async () => {
    const path = respond('keyed', CACHEABLE);
    const plain = await send(path);
    const otherHost = await send(path, { host: 'alt.localhost' });
    const tls = await send(path, { tls: true });
    const numbers = [plain, otherHost, tls].map((answer) => echo(answer).n);
    expect(new Set(numbers).size).toBe(3);
    expect(echo(otherHost).headers['x-forwarded-host']).toBe('alt.localhost');
    expect(echo(tls).headers['x-forwarded-proto']).toBe('https');
    // Each is cached under its own key now.
    expect(echo(await send(path, { host: 'alt.localhost' })).n).toBe(echo(otherHost).n);
    expect(echo(await send(path, { tls: true })).n).toBe(echo(tls).n);
    expect(echo(await send(path)).n).toBe(echo(plain).n);
  });

  it('an Age the app sent passes through once, and a cached answer never shows less', async () => {
    const path = respond('aged', { ...CACHEABLE, Age: '7' });
    const miss = await send(path);
    expect(miss.headers.age).toBe('7');
    expect(ages(miss)).toBe(1);
    const hit = await send(path);
    expect(echo(hit).n).toBe(echo(miss).n);
    expect(ages(hit)).toBe(1);
    expect(Number(hit.headers.age)).toBeGreaterThanOrEqual(7);
  });

  it('an expired answer the app allows stale-if-error is served while the app is down, with its full Age', async () => {
    const path = `/fragile/headers?${new URLSearchParams({ 'Cache-Control': 'public, max-age=1, stale-if-error=600' }).toString()}`;
    const stored = await send(path);
    expect(stored.status).toBe(200);
    await fragile.close();
    // Past max-age the app cannot be reached: nginx answers from the stale entry, counting its whole age.
    await expect
      .poll(
        async () => {
          const answer = await send(path);
          return { status: answer.status, n: echo(answer).n, old: Number(answer.headers.age) >= 2 };
        },
        { timeout: 15_000, interval: 250 },
      )
      .toEqual({ status: 200, n: echo(stored).n, old: true });
  });

  it('names the package when nginx cannot load the njs module the cache needs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'proxyops-spec-'));
    const specPath = join(dir, 'spec.json');
    await writeFile(
      specPath,
      JSON.stringify({
        version: 1,
        paths: { modulesDir: join(dir, 'no-modules') },
        upstreams: { app: { servers: [{ host: '127.0.0.1', port: 3000 }] } },
        servers: [
          {
            names: ['a.example'],
            listen: [{ port: 8080 }],
            routes: [{ path: '/', upstream: 'app', cache: true }],
          },
        ],
      }),
    );
    const failed = await validateConfigFile(specPath).catch((e: unknown) => e);
    await rm(dir, { recursive: true, force: true });
    expect(failed).toMatchObject({ code: 'NGINX_MODULE_MISSING' });
    expect((failed as Error).message).toContain(`${join(dir, 'no-modules')}/ngx_http_js_module.so`);
    expect((failed as Error).message).toContain('apt-get install -y libnginx-mod-http-js');
  });
});
