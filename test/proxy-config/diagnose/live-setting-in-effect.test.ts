import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';
import { expectTopFinding, sourcesOf, waitForLines } from './live-helpers.js';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('diagnose 413 and 504 name the directive in effect, inherited from http or server', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  /** `FILE:LINE` of a line of the running config holding `text`. */
  let lineOf: (text: string) => string;

  beforeAll(async () => {
    app = await startUpstreamApp();
    const port = await freePort();
    // Set where a hand-written config sets them: the body limit for all of http, the timeout per server.
    nginx = await startLiveNginx(`
      client_max_body_size 1k;
      server {
        listen 127.0.0.1:${port};
        proxy_read_timeout 1s;
        location / {
          proxy_pass http://127.0.0.1:${app.port};
        }
      }`);
    const conf = nginx.target.confPath;
    const lines = (await readFile(conf, 'utf8')).split('\n');
    lineOf = (text) => `${conf}:${lines.findIndex((line) => line.includes(text)) + 1}`;
    const upload = await fetch(`http://127.0.0.1:${port}/upload`, { method: 'POST', body: 'x'.repeat(4000) });
    expect(upload.status).toBe(413);
    expect((await fetch(`http://127.0.0.1:${port}/slow?ms=1600`)).status).toBe(504);
    await waitForLines(nginx.accessLog, 2);
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await app?.close();
  });

  it('413: client_max_body_size of http, its line, the location it applies to, and where to change it', async () => {
    const evidence = expectTopFinding(
      await diagnose({ symptom: '413', ...sourcesOf(nginx) }),
      'proxy-body-limit',
    );
    const set = lineOf('client_max_body_size 1k;');
    const location = lineOf('location / {');
    expect(evidence).toMatch(
      new RegExp(
        `^config: client_max_body_size 1k \\(1024 bytes \\(1\\.0 KiB\\)\\) at ${escape(set)}, in http, inherited: ` +
          `in effect for ${escape(location)} server 127\\.0\\.0\\.1:\\d+ location /; change it at ${escape(set)} ` +
          `\\(for all of http\\), or set it inside the location \\(${escape(location)}\\) for it alone$`,
        'm',
      ),
    );
  });

  it('504: proxy_read_timeout of the server, its line, and where to change it', async () => {
    const evidence = expectTopFinding(
      await diagnose({ symptom: '504', ...sourcesOf(nginx) }),
      'upstream-read-timeout',
    );
    const set = lineOf('proxy_read_timeout 1s;');
    expect(evidence).toMatch(
      new RegExp(
        `^config: proxy_read_timeout 1s \\(1 s\\) at ${escape(set)}, in server, inherited: in effect for ` +
          `${escape(lineOf('location / {'))} server 127\\.0\\.0\\.1:\\d+ location /; change it at ${escape(set)} \\(for all of server\\)`,
        'm',
      ),
    );
  });
});
