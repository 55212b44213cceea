import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { processFamily, readPidFile } from '../../../proxy-config/shell/process/proc-process-tree.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';
import { expectTopFinding, sourcesOf, waitForLines } from './live-helpers.js';

describe('diagnose 504 and 499 against a live nginx', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function app(): Promise<UpstreamApp> {
    const started = await startUpstreamApp();
    cleanups.push(() => started.close());
    return started;
  }

  async function proxy(
    upstreamPort: number,
    readTimeout: string,
    handler = `proxy_pass http://127.0.0.1:${upstreamPort};`,
    listenFlags = '',
    extra = '',
  ): Promise<{ nginx: LiveNginx; port: number }> {
    const port = await freePort();
    const nginx = await startLiveNginx(`
      server {
        listen 127.0.0.1:${port} ${listenFlags};
        location / { ${handler} proxy_read_timeout ${readTimeout}; ${extra} }
      }`);
    cleanups.push(() => nginx.stop());
    return { nginx, port };
  }

  it('upstream-read-timeout: the upstream is slower than proxy_read_timeout', async () => {
    const upstream = await app();
    const { nginx, port } = await proxy(upstream.port, '1s');
    const statuses = await Promise.all(
      [1, 2].map(() => fetch(`http://127.0.0.1:${port}/slow?ms=1600`).then((r) => r.status)),
    );
    expect(statuses).toEqual([504, 504]);
    await waitForLines(nginx.accessLog, 2);
    const evidence = expectTopFinding(
      await diagnose({ symptom: '504', ...sourcesOf(nginx) }),
      'upstream-read-timeout',
    );
    expect(evidence).toContain(
      'upstream timed out (110: Connection timed out) while reading response header from upstream',
    );
    expect(evidence).toMatch(
      new RegExp(
        `2 of 2 504s produced by nginx after connecting \\(upstreams 127\\.0\\.0\\.1:${upstream.port} \\(2\\)\\); request time median 1\\.\\d{3} s`,
      ),
    );
    expect(evidence).toMatch(
      /proxy_read_timeout 1s \(1 s\) at .*nginx\.conf:\d+, in location \/: in effect for .*nginx\.conf:\d+ server 127\.0\.0\.1:\d+ location \/; change it at .*nginx\.conf:\d+/,
    );
  });

  it('upstream-connect-timeout: the upstream host hangs and its listen backlog is full', async () => {
    const hung = await proxy(0, '1s', 'return 200;', 'backlog=1');
    const { nginx, port } = await proxy(hung.port, '1s', undefined, '', 'proxy_connect_timeout 1s;');
    const family = await processFamily(await readPidFile(join(hung.nginx.prefix, 'nginx.pid')));
    const sockets: Socket[] = [];
    for (const member of family) process.kill(member.pid, 'SIGSTOP');
    try {
      // Nobody accepts: these fill the backlog, so the kernel drops nginx's SYNs from now on.
      let connected = 0;
      for (let i = 0; i < 4; i++)
        sockets.push(
          connect(hung.port, '127.0.0.1')
            .on('connect', () => connected++)
            .on('error', () => undefined),
        );
      // Linux queues backlog + 1 = 2 connections: once both are in, the queue is full (not a fixed sleep).
      await expect.poll(() => connected, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(504);
    } finally {
      for (const member of family) process.kill(member.pid, 'SIGCONT');
      for (const socket of sockets) socket.destroy();
    }
    await waitForLines(nginx.accessLog, 1);
    const evidence = expectTopFinding(
      await diagnose({ symptom: '504', ...sourcesOf(nginx) }),
      'upstream-connect-timeout',
    );
    expect(evidence).toContain('upstream timed out (110: Connection timed out) while connecting to upstream');
    expect(evidence).toMatch(
      new RegExp(
        `1 of 1 504s produced by nginx without ever connecting \\(upstreams 127\\.0\\.0\\.1:${hung.port} \\(1\\)\\)`,
      ),
    );
  });

  it('timeout-layering: the outer proxy gives up (1 s) before the inner one (5 s), which logs 499', async () => {
    const upstream = await app();
    const inner = await proxy(upstream.port, '5s');
    const outer = await proxy(inner.port, '1s');
    const statuses = await Promise.all(
      [1, 2, 3].map(() => fetch(`http://127.0.0.1:${outer.port}/slow?ms=2500`).then((r) => r.status)),
    );
    expect(statuses).toEqual([504, 504, 504]);
    await waitForLines(inner.nginx.accessLog, 3);
    const result = await diagnose({ symptom: '499', ...sourcesOf(inner.nginx) });
    const evidence = expectTopFinding(result, 'timeout-layering');
    const range = /3 × 499 after (\d\.\d{3})–(\d\.\d{3}) s/.exec(evidence);
    expect(range).not.toBeNull();
    for (const seconds of range!.slice(1).map(Number)) expect(Math.abs(seconds - 1)).toBeLessThan(0.15);
    expect(evidence).toMatch(
      /nginx waits up to 5 s, longer than the ~1\.0 s at which the outer layer gives up\n.*proxy_read_timeout 5s \(5 s\) at /,
    );
    expect(result.findings.map((finding) => finding.id)).toContain('slow-upstream-499');
  });

  it('slow-upstream-499: clients give up at different times while the upstream has not answered', async () => {
    const upstream = await app();
    const { nginx, port } = await proxy(upstream.port, '5s');
    await Promise.all(
      [200, 450, 800].map((ms) =>
        fetch(`http://127.0.0.1:${port}/slow?ms=3000`, { signal: AbortSignal.timeout(ms) }).catch(
          () => 'aborted',
        ),
      ),
    );
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    await waitForLines(nginx.accessLog, 4);
    const result = await diagnose({ symptom: '499', ...sourcesOf(nginx) });
    const evidence = expectTopFinding(result, 'slow-upstream-499');
    expect(evidence).toMatch(/3 × 499 before the upstream sent a response header, 75\.0% of 4 requests/);
    expect(evidence).toMatch(/clients waited 0\.[12]\d\d–0\.[78]\d\d s/);
    expect(result.findings.map((finding) => finding.id)).not.toContain('timeout-layering');
  });
});
