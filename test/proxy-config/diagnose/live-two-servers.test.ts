import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';
import { waitForLines } from './live-helpers.js';

// The newcomer's set-up: two servers with the same locations, each its own proxy_read_timeout; only
// the second writes the access log read. The slow requests time out in the second server.
describe('diagnose 504 against a live nginx with two servers', () => {
  let upstream: UpstreamApp;
  let nginx: LiveNginx;
  let second: number;
  beforeAll(async () => {
    upstream = await startUpstreamApp();
    const first = await freePort();
    second = await freePort();
    const locations = `
        location / { proxy_pass http://127.0.0.1:${upstream.port}; }
        location /direct/ { proxy_pass http://127.0.0.1:${upstream.port}/; }`;
    nginx = await startLiveNginx(`
      server {
        listen 127.0.0.1:${first};
        proxy_read_timeout 3s;
        access_log off;${locations}
      }
      server {
        listen 127.0.0.1:${second};
        proxy_read_timeout 1s;
        access_log {{accessLog}} main;${locations}
      }`);
  });
  afterAll(async () => {
    await nginx?.stop();
    await upstream?.close();
  });

  it('names the location and setting of the server that answered, not the same path in the first server', async () => {
    const statuses = await Promise.all(
      [1, 2].map(() => fetch(`http://127.0.0.1:${second}/direct/slow?ms=1600`).then((r) => r.status)),
    );
    expect(statuses).toEqual([504, 504]);
    await waitForLines(nginx.accessLog, 2);
    const result = await diagnose({
      symptom: '504',
      accessLog: nginx.accessLog,
      errorLog: nginx.errorLog,
      config: nginx.target.confPath,
    });
    const finding = result.findings.find((f) => f.id === 'upstream-read-timeout');
    const config = finding?.evidence.filter((line) => line.startsWith('config:')) ?? [];
    expect(config, JSON.stringify(finding?.evidence, null, 1)).toHaveLength(1);
    expect(config[0]).toMatch(
      new RegExp(
        `^config: proxy_read_timeout 1s \\(1 s\\) at .*nginx\\.conf:\\d+, in server, inherited: in effect for .*nginx\\.conf:\\d+ server 127\\.0\\.0\\.1:${second} location /direct/;`,
      ),
    );
  });
});

// Both servers write one access log whose format logs $server_port: the port tells which answered.
describe('diagnose 504 against a live nginx whose shared access log logs $server_port', () => {
  let upstream: UpstreamApp;
  let nginx: LiveNginx;
  let second: number;
  beforeAll(async () => {
    upstream = await startUpstreamApp();
    const first = await freePort();
    second = await freePort();
    const locations = `
        location / { proxy_pass http://127.0.0.1:${upstream.port}; }
        location /direct/ { proxy_pass http://127.0.0.1:${upstream.port}/; }`;
    nginx = await startLiveNginx(
      `
      server { listen 127.0.0.1:${first}; proxy_read_timeout 3s;${locations} }
      server { listen 127.0.0.1:${second}; proxy_read_timeout 1s;${locations} }`,
      {
        logFormat:
          '$remote_addr [$time_local] "$request" $status rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" ua="$upstream_addr" sp=$server_port',
      },
    );
  });
  afterAll(async () => {
    await nginx?.stop();
    await upstream?.close();
  });

  it('names the location of the server on the logged port only', async () => {
    expect(await fetch(`http://127.0.0.1:${second}/direct/slow?ms=1600`).then((r) => r.status)).toBe(504);
    await waitForLines(nginx.accessLog, 1);
    const result = await diagnose({
      symptom: '504',
      accessLog: nginx.accessLog,
      config: nginx.target.confPath,
    });
    const finding = result.findings.find((f) => f.id === 'upstream-read-timeout');
    const config = finding?.evidence.filter((line) => line.startsWith('config:')) ?? [];
    expect(config, JSON.stringify(finding?.evidence, null, 1)).toHaveLength(1);
    expect(config[0]).toMatch(
      new RegExp(`^config: proxy_read_timeout 1s .* server 127\\.0\\.0\\.1:${second} location /direct/;`),
    );
  });
});
