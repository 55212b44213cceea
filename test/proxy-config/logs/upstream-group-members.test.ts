import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.js';

describe('logs stats --upstream GROUP --nginx-conf', () => {
  let dir: string;
  let log: string;
  let conf: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-upstream-group-'));
    log = join(dir, 'access.log');
    conf = join(dir, 'nginx.conf');
    await writeFile(
      conf,
      [
        'events {}',
        'http {',
        '  log_format up \'$remote_addr [$time_local] "$request" $status ua="$upstream_addr"\';',
        '  upstream app { server 127.0.0.1:19101; server 127.0.0.1:19102; }',
        '  server {',
        '    listen 127.0.0.1:18480;',
        `    access_log ${log} up;`,
        '    location / { proxy_pass http://app; }',
        '    location /other/ { proxy_pass http://127.0.0.1:19200; }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    // What nginx logs: a member's address for each request through the group, the group's name only
    // when no member was available.
    const line = (status: number, path: string, addr: string) =>
      `127.0.0.1 [06/Dec/2026:06:28:0${status % 10} +0000] "GET ${path} HTTP/1.1" ${status} ua="${addr}"`;
    await writeFile(
      log,
      [
        line(200, '/a', '127.0.0.1:19101'),
        line(200, '/b', '127.0.0.1:19102'),
        line(502, '/c', 'app'),
        line(200, '/other/d', '127.0.0.1:19200'),
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("matches the requests through the group (its members' addresses), not only its 'no live upstreams' lines", async () => {
    const { code, stdout } = await runCli(['logs', 'stats', log, '--nginx-conf', conf, '--upstream', 'app']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^records 3 +lines 4 +malformed 0 +filtered out 1/);
  });
});
