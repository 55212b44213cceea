import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyConfig, rollbackConfig } from '../../proxy-config/config/apply-config.js';
import { readVersionState, versionDir } from '../../proxy-config/shell/nginx/config-versions.js';
import { readLiveMasterPid } from '../../proxy-config/shell/nginx/nginx-master.js';
import { processFamily } from '../../proxy-config/shell/process/proc-process-tree.js';
import { signalNginx, startNginx, type NginxTarget } from '../../proxy-config/shell/nginx/nginx-process.js';
import { freePort } from '../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../support/upstream-app.js';
import { snapshotDir } from './helpers/snapshot-dir.js';

describe('config apply against a live nginx', () => {
  let root: string;
  let runtime: string;
  let target: string;
  let app: UpstreamApp;
  let port: number;
  let nginx: NginxTarget;
  let specCount = 0;

  /** Writes a spec for the live nginx on `port`; each call gets a fresh file. */
  async function writeSpec(
    options: { layer: string; upstreamPort?: number; extraListenPort?: number; duplicateServer?: boolean } = {
      layer: 'a',
    },
  ): Promise<string> {
    const server = (name: string) => ({
      names: [name],
      listen: [
        { address: '127.0.0.1', port, defaultServer: true },
        ...(options.extraListenPort ? [{ address: '127.0.0.1', port: options.extraListenPort }] : []),
      ],
      // websocket: the upgrade map must leave plain requests on upstream keep-alive (tests below).
      routes: [{ path: '/', upstream: 'app', websocket: true }],
      static: [
        { path: '/assets/', root: join(root, 'www'), contentHashed: true },
        { path: '/pages/', root: join(root, 'www') },
      ],
    });
    const spec = {
      version: 1,
      layerName: `layer-${options.layer}`,
      paths: { pidFile: join(runtime, 'nginx.pid'), tempDir: join(runtime, 'temp') },
      workers: { processes: 1, connections: 256, rlimitNofile: 1024 },
      accessLog: { path: join(runtime, 'logs', 'access.log'), buffer: null },
      errorLog: { path: join(runtime, 'logs', 'error.log') },
      upstreams: {
        app: { servers: [{ host: '127.0.0.1', port: options.upstreamPort ?? app.port }], keepalive: 4 },
      },
      servers: options.duplicateServer ? [server('a.test'), server('b.test')] : [server('localhost')],
    };
    const path = join(root, `spec-${++specCount}.json`);
    await writeFile(path, JSON.stringify(spec, null, 2));
    return path;
  }

  /**
   * One request on a fresh connection, so a reload is seen at once (no kept-alive socket to an old
   * worker). With `declaredBody`, it announces that many body bytes but sends only the first KB: nginx
   * judges the size from Content-Length.
   */
  const get = (path: string, headers: Record<string, string> = {}, declaredBody?: number) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders }>((resolve, reject) => {
      const method = declaredBody ? 'POST' : 'GET';
      const allHeaders = declaredBody ? { ...headers, 'content-length': String(declaredBody) } : headers;
      const req = request(
        { host: '127.0.0.1', port, path, method, headers: allHeaders, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
        },
      );
      req.on('error', reject);
      if (declaredBody) req.write(Buffer.alloc(1024));
      else req.end();
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-apply-'));
    await chmod(root, 0o755);
    runtime = join(root, 'run');
    target = join(root, 'conf');
    await mkdir(join(runtime, 'logs'), { recursive: true, mode: 0o755 });
    await mkdir(join(runtime, 'temp'), { recursive: true, mode: 0o755 });
    await mkdir(join(root, 'www', 'assets'), { recursive: true, mode: 0o755 });
    await mkdir(join(root, 'www', 'pages'), { recursive: true, mode: 0o755 });
    await writeFile(join(root, 'www', 'assets', 'app.3f9a1c.js'), 'console.log(1);\n', { mode: 0o644 });
    await writeFile(join(root, 'www', 'pages', 'index.html'), '<h1>hi</h1>\n', { mode: 0o644 });
    app = await startUpstreamApp();
    port = await freePort();
    // First apply with no nginx running only installs v0001; then nginx starts from `current`.
    const first = await applyConfig({ specPath: await writeSpec({ layer: 'a' }), target });
    expect(first).toMatchObject({ version: 'v0001' });
    expect(first.reload).toBeUndefined();
    nginx = {
      confPath: join(target, 'current', 'nginx.conf'),
      prefix: runtime,
      startupErrorLog: join(runtime, 'logs', 'error.log'),
    };
    await startNginx(nginx);
    // The master writes its pid file after it daemonized; applies reload only once it is there.
    for (let i = 0; i < 500 && !(await readLiveMasterPid(join(runtime, 'nginx.pid'))); i++) await sleep(20);
    expect(await readLiveMasterPid(join(runtime, 'nginx.pid'))).toBeGreaterThan(0);
  });

  afterAll(async () => {
    if (nginx) await signalNginx(nginx, 'stop').catch(() => undefined);
    for (let i = 0; i < 500 && (await readLiveMasterPid(join(runtime, 'nginx.pid'))); i++) await sleep(20);
    await app?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('serves through the rendered config: request id echoed and forwarded, forwarded proto seen upstream', async () => {
    const res = await get('/echo');
    expect(res.status).toBe(200);
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(res.headers['x-served-by']).toBe('layer-a');
    expect(res.headers.server).toBe('nginx');
    const seen = app.seen.at(-1)!.headers;
    expect(seen['x-request-id']).toBe(id);
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    // Host 127.0.0.1:PORT names no server of this spec (only localhost, the default server): the app
    // is told the server's own name, never a Host or X-Forwarded-Host the client chose.
    expect(seen['x-forwarded-host']).toBe(`localhost:${port}`);
    await get('/echo', { host: `LOCALHOST:${port}`, 'x-forwarded-host': 'evil.example' });
    expect(app.seen.at(-1)!.headers['x-forwarded-host']).toBe(`LOCALHOST:${port}`);
    await get('/echo', { host: 'evil.example', 'x-forwarded-host': 'evil.example' });
    expect(app.seen.at(-1)!.headers['x-forwarded-host']).toBe(`localhost:${port}`);
    expect(seen.connection).toBe(undefined);

    const given = await get('/echo', { 'x-request-id': 'client-given-42' });
    expect(given.headers['x-request-id']).toBe('client-given-42');
    expect(app.seen.at(-1)!.headers['x-request-id']).toBe('client-given-42');
    await expect
      .poll(() => readFile(join(runtime, 'logs', 'access.log'), 'utf8'), { timeout: 10_000 })
      .toMatch(new RegExp(`"GET /echo HTTP/1.1" 200 .* us="200" rid="${id}"`));
  });

  it('caches hashed assets immutable and HTML no-cache, and marks even its own 413 with the layer', async () => {
    const asset = await get('/assets/app.3f9a1c.js');
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['content-type']).toBe('application/javascript');
    const page = await get('/pages/');
    expect(page.status).toBe(200);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-type']).toBe('text/html');
    const before = app.seen.length;
    const tooLarge = await get('/upload', {}, 2 * 1024 * 1024);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers['x-served-by']).toBe('layer-a');
    expect(tooLarge.headers['x-request-id']).toMatch(/^[0-9a-f]{32}$/);
    expect(app.seen.length).toBe(before);
  });

  it('reuses one upstream connection for several requests (keep-alive)', async () => {
    const before = app.seen.length;
    for (let i = 0; i < 6; i++) expect((await get(`/ka-${i}`)).status).toBe(200);
    const ports = new Set(app.seen.slice(before).map((s) => s.remotePort));
    expect(app.seen.length - before).toBe(6);
    expect(ports.size).toBe(1);
  });

  it('applies a new version: atomic swap, new workers confirmed, previous version kept', async () => {
    const v1 = await snapshotDir(versionDir(target, 'v0001'));
    const report = await applyConfig({ specPath: await writeSpec({ layer: 'b' }), target });
    expect(report).toMatchObject({ version: 'v0002', previous: 'v0001' });
    const { workersBefore, workersAfter } = report.reload!;
    expect(workersAfter.length).toBeGreaterThan(0);
    expect(workersAfter.filter((pid) => workersBefore.includes(pid))).toEqual([]);
    expect((await get('/')).headers['x-served-by']).toBe('layer-b');
    expect(await readVersionState(target)).toMatchObject({ current: 'v0002', previous: 'v0001' });
    expect(await snapshotDir(versionDir(target, 'v0001'))).toEqual(v1);
  });

  it('applying the live spec again is a no-op: no new version, no reload, the same worker pids', async () => {
    const masterPid = (await readLiveMasterPid(join(runtime, 'nginx.pid')))!;
    const workers = async () =>
      (await processFamily(masterPid)).filter((p) => p.pid !== masterPid).map((p) => p.pid);
    const before = { state: await readVersionState(target), workers: await workers() };
    const said: string[] = [];
    const report = await applyConfig({
      specPath: await writeSpec({ layer: 'b' }),
      target,
      say: (line) => said.push(line),
    });
    expect(report).toMatchObject({ version: 'v0002', unchanged: true });
    expect(report.reload).toBeUndefined();
    expect(said.join('\n')).toMatch(/unchanged: v0002 already holds this render/);
    expect(await readVersionState(target)).toEqual(before.state);
    expect(await workers()).toEqual(before.workers);
    expect((await get('/')).headers['x-served-by']).toBe('layer-b');
  });

  it('a failed validation changes nothing: files byte-identical, nginx keeps serving', async () => {
    const before = await snapshotDir(target);
    const masterPid = await readLiveMasterPid(join(runtime, 'nginx.pid'));

    const schemaBad = join(root, 'bad-schema.json');
    await writeFile(schemaBad, JSON.stringify({ version: 1, upstreams: {}, servers: [] }));
    await expect(applyConfig({ specPath: schemaBad, target })).rejects.toMatchObject({
      code: 'SPEC_INVALID',
    });

    const nginxBad = await writeSpec({ layer: 'x', duplicateServer: true });
    await expect(applyConfig({ specPath: nginxBad, target })).rejects.toMatchObject({
      code: 'NGINX_TEST_FAILED',
      message: expect.stringMatching(/duplicate default server/),
    });

    expect(await snapshotDir(target)).toEqual(before);
    expect(await readLiveMasterPid(join(runtime, 'nginx.pid'))).toBe(masterPid);
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers['x-served-by']).toBe('layer-b');
  });

  it('a reload nginx refuses (port taken) is detected and the files are put back', async () => {
    const busyPort = await freePort();
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(busyPort, '127.0.0.1', resolve));
    try {
      const before = await readVersionState(target);
      const spec = await writeSpec({ layer: 'y', extraListenPort: busyPort });
      await expect(applyConfig({ specPath: spec, target })).rejects.toMatchObject({
        code: 'RELOAD_FAILED',
        message: expect.stringMatching(/bind\(\) to 127\.0\.0\.1:\d+ failed/),
      });
      expect(await readVersionState(target)).toMatchObject({
        current: before.current,
        previous: before.previous,
      });
      expect((await get('/')).headers['x-served-by']).toBe('layer-b');
    } finally {
      squatter.close();
    }
  });

  it('rollback restores the previous version and reloads', async () => {
    const state = await readVersionState(target);
    const report = await rollbackConfig(target);
    expect(report).toMatchObject({ from: state.current, to: 'v0001' });
    expect(report.reload?.workersAfter.length).toBeGreaterThan(0);
    expect((await get('/')).headers['x-served-by']).toBe('layer-a');
    expect(await readFile(join(target, 'current', 'nginx.conf'), 'utf8')).toBe(
      await readFile(join(versionDir(target, 'v0001'), 'nginx.conf'), 'utf8'),
    );
  });

  it('watches status codes after an apply and rolls back by itself when 5xx rise above the ratio', async () => {
    const deadPort = await freePort();
    const good = (await readVersionState(target)).current!;
    const accessLog = join(runtime, 'logs', 'access.log');
    const logged = (await stat(accessLog)).size;
    let traffic = true;
    const load = (async () => {
      while (traffic) {
        await get('/').catch(() => undefined);
        await sleep(40);
      }
    })();
    // The "before" distribution needs the load's 200s in the log: wait for one rather than sleep.
    await expect
      .poll(async () => (await readFile(accessLog, 'latin1')).slice(logged), { timeout: 10_000 })
      .toMatch(/"GET \/ HTTP\/1\.1" 200 /);
    const report = await applyConfig({
      specPath: await writeSpec({ layer: 'dead', upstreamPort: deadPort }),
      target,
      watchSeconds: 4,
      rollbackOn5xx: 0.5,
    });
    traffic = false;
    await load;
    expect(report.watch?.before.byStatus['200']).toBeGreaterThan(0);
    expect(report.watch?.after.byStatus['502']).toBeGreaterThan(0);
    expect(report.watch?.after.share5xx).toBeGreaterThan(0.5);
    expect(report.rolledBack?.to).toBe(good);
    expect((await readVersionState(target)).current).toBe(good);
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers['x-served-by']).toBe('layer-a');
  });

  it('a healthy apply under watch keeps the new version and reports the distribution', async () => {
    let traffic = true;
    const load = (async () => {
      while (traffic) {
        await get('/').catch(() => undefined);
        await sleep(40);
      }
    })();
    const report = await applyConfig({
      specPath: await writeSpec({ layer: 'c' }),
      target,
      watchSeconds: 1.5,
      rollbackOn5xx: 0.5,
    });
    traffic = false;
    await load;
    expect(report.rolledBack).toBeUndefined();
    expect(report.watch?.after.total).toBeGreaterThan(0);
    expect(report.watch?.after.share5xx).toBe(0);
    expect((await get('/')).headers['x-served-by']).toBe('layer-c');
  });
});
