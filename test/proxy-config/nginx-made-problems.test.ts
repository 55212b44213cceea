import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signalNginx, type NginxTarget } from '../../proxy-config/shell/nginx/nginx-process.js';
import { startAppliedNginx } from '../support/live-nginx.js';
import { freePort } from '../support/ports.js';
import { exchangeRaw } from '../support/raw-traffic.js';
import { startUpstreamApp, type UpstreamApp } from '../support/upstream-app.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('errors nginx makes itself are problem documents (through a live nginx)', () => {
  let root: string;
  let app: UpstreamApp;
  let port: number;
  let deadPort: number;
  let otherPort: number;
  let nginx: NginxTarget;

  const send = (
    path: string,
    { headers = {}, body }: { headers?: Record<string, string>; body?: number } = {},
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path,
          method: body ? 'POST' : 'GET',
          headers: body ? { ...headers, 'content-length': String(body) } : headers,
          agent: false,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      if (body) req.write(Buffer.alloc(1024));
      else req.end();
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-problems-'));
    await chmod(root, 0o755);
    const runtime = join(root, 'run');
    await mkdir(join(runtime, 'logs'), { recursive: true, mode: 0o755 });
    await mkdir(join(runtime, 'temp'), { recursive: true, mode: 0o755 });
    app = await startUpstreamApp();
    port = await freePort();
    deadPort = await freePort();
    otherPort = await freePort();
    const spec = {
      version: 1,
      layerName: 'edge-test',
      paths: { pidFile: join(runtime, 'nginx.pid'), tempDir: join(runtime, 'temp') },
      workers: { processes: 1, connections: 256, rlimitNofile: 1024 },
      accessLog: { path: join(runtime, 'logs', 'access.log'), buffer: null },
      errorLog: { path: join(runtime, 'logs', 'error.log') },
      limits: { clientMaxBodySize: '64k' },
      upstreams: {
        app: { servers: [{ host: '127.0.0.1', port: app.port, maxFails: 0 }], keepalive: 4 },
        slow: {
          servers: [{ host: '127.0.0.1', port: app.port, maxFails: 0 }],
          app: { requestTimeout: 1, keepAliveTimeout: 65 },
        },
        gone: { servers: [{ host: '127.0.0.1', port: deadPort, maxFails: 0 }] },
      },
      servers: [
        {
          names: ['localhost'],
          // The second socket has no default server: a Host naming no server meets the catch-all there.
          listen: [
            { address: '127.0.0.1', port, defaultServer: true },
            { address: '127.0.0.1', port: otherPort },
          ],
          routes: [
            { path: '/', upstream: 'app' },
            { path: '/slow', upstream: 'slow', timeouts: { read: 2 } },
            { path: '/gone/', upstream: 'gone' },
          ],
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

  /** The checks every nginx-made problem passes: media type, API fields, the id in header and body. */
  function expectProblem(answer: Answer, status: number, code: string) {
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers['x-served-by']).toBe('edge-test');
    const problem = JSON.parse(answer.body) as Record<string, unknown>;
    expect(problem).toMatchObject({
      type: `urn:proxyops:problem:${code.toLowerCase().replace(/_/g, '-')}`,
      status,
      code,
      layer: 'edge-test',
    });
    expect(problem.requestId).toBe(answer.headers['x-request-id']);
    return problem;
  }

  it('413 from client_max_body_size', async () => {
    const answer = await send('/upload', { body: 1024 * 1024 });
    const problem = expectProblem(answer, 413, 'BODY_TOO_LARGE');
    expect(problem.instance).toBe('/upload');
  });

  it('502 from a refused upstream and from one that closes without answering', async () => {
    expectProblem(await send('/gone/x'), 502, 'UPSTREAM_UNAVAILABLE');
    expectProblem(await send('/close'), 502, 'UPSTREAM_UNAVAILABLE');
  });

  it('504 from the route read timeout', async () => {
    expectProblem(await send('/slow?ms=5000'), 504, 'UPSTREAM_TIMEOUT');
  });

  it('405 with Allow for the methods nginx refuses itself (TRACE, CONNECT); other methods reach the application', async () => {
    const allows = new Set<string | undefined>();
    for (const request of [
      'TRACE /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
      'CONNECT /health/live HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
      'TRACE /graphql HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    ]) {
      const answer = await exchangeRaw(port, request);
      expectProblem(answer, 405, 'METHOD_NOT_ALLOWED');
      // RFC 9110 section 15.5.6: a 405 names the methods that would be taken.
      expect(answer.headers.allow).toMatch(/^[A-Z]+(, [A-Z]+)*$/);
      expect(answer.headers.allow).toContain('OPTIONS');
      expect(answer.headers.allow).not.toMatch(/TRACE|CONNECT/);
      allows.add(answer.headers.allow);
    }
    // Refused before a location is picked: one list for every path, as api.md and graphql.md say.
    expect(allows.size).toBe(1);
    // A Host no server names, on a socket without a default server: the catch-all's 421, TRACE too.
    const misdirected = await exchangeRaw(
      otherPort,
      'TRACE /health/live HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
    );
    expect(misdirected.status).toBe(421);
    expect(misdirected.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(misdirected.body)).toMatchObject({ status: 421, code: 'MISDIRECTED_REQUEST' });
    const before = app.seen.length;
    const unknown = await exchangeRaw(
      port,
      'PROPFIND /echo HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    );
    expect(unknown.status).toBe(200);
    expect(app.seen.slice(before).map((r) => r.method)).toEqual(['PROPFIND']);
  });

  it('the application’s own error responses pass through unchanged', async () => {
    const own = await send('/status/502');
    expect(own.status).toBe(502);
    expect(own.body).toBe('status 502\n');
    expect(own.headers['content-type']).not.toBe('application/problem+json');
  });

  it('a request id or path that would break the JSON is replaced, and the body still parses', async () => {
    const forged = '"},"admin":true,"x":"';
    const answer = await send('/gone/a%22b', { headers: { 'x-request-id': forged } });
    const problem = expectProblem(answer, 502, 'UPSTREAM_UNAVAILABLE');
    expect(problem).not.toHaveProperty('admin');
    expect(problem.requestId).toMatch(/^[0-9a-f]{32}$/);
    expect(problem.instance).toBe('');
  });
});
