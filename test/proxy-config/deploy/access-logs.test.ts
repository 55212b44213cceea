import { copyFile, readFile, rename, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localAccessLogs, type LogMark } from '../../../proxy-config/deploy/access-logs.js';
import { PROXYOPS_LOG_FORMAT_TEXT } from '../../../proxy-config/core/render/log-formats.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

describe("a deploy's access log marks, over a log a real nginx writes, across rotation", () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  let port: number;

  beforeAll(async () => {
    app = await startUpstreamApp();
    port = await freePort();
    nginx = await startLiveNginx(
      `
      map $http_x_request_id $proxyops_request_id { default $http_x_request_id; '' $request_id; }
      server { listen 127.0.0.1:${port}; location / { proxy_pass http://127.0.0.1:${app.port}; } }`,
      { logFormat: PROXYOPS_LOG_FORMAT_TEXT },
    );
  });
  afterAll(async () => {
    await nginx?.stop();
    await app?.close();
  });

  it('reads every request once from its marks while the log is moved and reopened (USR1), then copy-truncated', async () => {
    const logs = localAccessLogs(nginx.accessLog);
    let next = 0;
    const send = async (count: number) => {
      for (let i = 0; i < count; i++)
        await (await fetch(`http://127.0.0.1:${port}/seq/${next++}`)).arrayBuffer();
    };
    // Requests before the first mark are not the watch's.
    await send(10);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const seen: number[] = [];
    let mark: LogMark = await logs.end();
    const first = mark;
    const poll = async () => {
      const chunk = await logs.since(mark);
      mark = chunk.end;
      for (const m of chunk.text.matchAll(/"GET \/seq\/(\d+) HTTP/g)) seen.push(Number(m[1]));
    };
    const pollUntilAll = async () => {
      for (let i = 0; i < 200 && seen.length < next - 10; i++) {
        await poll();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    try {
      await send(40);
      await poll();
      // Moved while requests come and the watch polls: nginx writes to the moved file until USR1.
      const during = send(60);
      await new Promise((resolve) => setTimeout(resolve, 30));
      await rename(nginx.accessLog, `${nginx.accessLog}.1`);
      await poll();
      const master = Number((await readFile(join(nginx.prefix, 'nginx.pid'), 'utf8')).trim());
      process.kill(master, 'SIGUSR1');
      await during;
      await send(40);
      await pollUntilAll();
      // copytruncate, as logrotate does for a program that cannot reopen: nginx appends from 0.
      await copyFile(nginx.accessLog, `${nginx.accessLog}.2`);
      await truncate(nginx.accessLog, 0);
      await send(40);
      await pollUntilAll();
      // A mark held since the start (a round's, while another polls) reads the whole stretch again.
      const again = [...(await logs.since(first)).text.matchAll(/"GET \/seq\/(\d+) HTTP/g)].map((m) =>
        Number(m[1]),
      );
      expect(again).toEqual(seen);
    } finally {
      logs.close();
    }
    expect(next).toBe(190);
    expect([...seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 180 }, (_, i) => i + 10));
  });
});
