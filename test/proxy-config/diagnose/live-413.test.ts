import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp } from '../../support/upstream-app.js';
import {
  expectTopFinding,
  sourcesOf,
  startScriptedApp,
  waitForLines,
  type ScriptedApp,
} from './live-helpers.js';

function post(url: string, bytes: number): Promise<number> {
  return fetch(url, { method: 'POST', body: Buffer.alloc(bytes, 0x61) }).then((res) => res.status);
}

/** An application server that reads the whole body, then refuses one over `limit` bytes with its own 413. */
function bodyLimitedApp(limit: number): Promise<ScriptedApp> {
  return startScriptedApp((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      res.statusCode = bytes > limit ? 413 : 200;
      res.end(bytes > limit ? 'payload too large for the app\n' : 'stored\n');
    });
  });
}

/** A load balancer in front: answers 413 itself (Server: edge-lb) over `limit`, else forwards to nginx. */
function edgeProxy(limit: number, nginxPort: number): Promise<ScriptedApp> {
  return startScriptedApp((req, res) => {
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      res.writeHead(413, { server: 'edge-lb', 'content-type': 'text/html', connection: 'close' });
      res.end('<html><body>Request too large</body></html>\n');
      req.socket.destroySoon();
      return;
    }
    const forward = request(
      { host: '127.0.0.1', port: nginxPort, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
}

describe('diagnose 413 against a live nginx', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function nginxBefore(
    upstreamPort: number,
    bodyLimit: string,
  ): Promise<{ nginx: LiveNginx; port: number }> {
    const port = await freePort();
    const nginx = await startLiveNginx(`
      server {
        listen 127.0.0.1:${port};
        location /upload { client_max_body_size ${bodyLimit}; proxy_pass http://127.0.0.1:${upstreamPort}; }
      }`);
    cleanups.push(() => nginx.stop());
    return { nginx, port };
  }

  it('proxy-body-limit: nginx client_max_body_size is the lowest limit', async () => {
    const app = await startUpstreamApp();
    cleanups.push(() => app.close());
    const { nginx, port } = await nginxBefore(app.port, '1k');
    expect(await post(`http://127.0.0.1:${port}/upload`, 4000)).toBe(413);
    await waitForLines(nginx.accessLog, 1);
    const result = await diagnose({
      symptom: '413',
      ...sourcesOf(nginx),
      url: `http://127.0.0.1:${port}/upload`,
      probeWrites: true,
    });
    const evidence = expectTopFinding(result, 'proxy-body-limit');
    expect(evidence).toContain('client intended to send too large body (largest 4000 bytes');
    expect(evidence).toContain('1 of 1 413s produced by nginx itself');
    expect(evidence).toMatch(/probe: nginx\/[\d.]+ \(nginx error page\) answers 413 from 1025 bytes/);
    expect(evidence).toMatch(
      /client_max_body_size 1k \(1024 bytes \(1\.0 KiB\)\) at .*nginx\.conf:\d+, in location \/upload: in effect for .* location \/upload; change it at /,
    );
  });

  it('upstream-body-limit: the application refuses bodies nginx lets through', async () => {
    const app = await bodyLimitedApp(2048);
    cleanups.push(() => app.close());
    const { nginx, port } = await nginxBefore(app.port, '10m');
    expect(await post(`http://127.0.0.1:${port}/upload`, 3000)).toBe(413);
    await waitForLines(nginx.accessLog, 1);
    const result = await diagnose({
      symptom: '413',
      ...sourcesOf(nginx),
      url: `http://127.0.0.1:${port}/upload`,
      probeWrites: true,
    });
    const evidence = expectTopFinding(result, 'upstream-body-limit');
    expect(evidence).toContain(`1 of 1 413s returned by the upstream (127.0.0.1:${app.port} (1))`);
    expect(evidence).toMatch(/probe: nginx\/[\d.]+ \(passed-through page\) answers 413 from 2049 bytes/);
    expect(result.findings.map((finding) => finding.id)).not.toContain('proxy-body-limit');
  });

  it('other-layer-body-limit: a load balancer in front rejects before nginx sees the request', async () => {
    const app = await startUpstreamApp();
    cleanups.push(() => app.close());
    const { nginx, port } = await nginxBefore(app.port, '1m');
    const edge = await edgeProxy(3000, port);
    cleanups.push(() => edge.close());
    expect(await post(`http://127.0.0.1:${edge.port}/upload`, 100)).toBe(200);
    expect(await post(`http://127.0.0.1:${edge.port}/upload`, 5000)).toBe(413);
    await waitForLines(nginx.accessLog, 1);
    const result = await diagnose({
      symptom: '413',
      ...sourcesOf(nginx),
      url: `http://127.0.0.1:${edge.port}/upload`,
      probeWrites: true,
    });
    const evidence = expectTopFinding(result, 'other-layer-body-limit');
    expect(evidence).toContain('probe: edge-lb (passed-through page) answers 413 from 3001 bytes');
    expect(evidence).toContain('no 413 in 1 records; the requests never reached nginx');
    expect(evidence).toMatch(/client_max_body_size 1m \(1048576 bytes \(1\.0 MiB\)\) at /);
  });
});
