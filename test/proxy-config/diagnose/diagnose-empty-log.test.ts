import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LOG_FORMATS } from '../../../proxy-config/core/diagnose/log-format-candidates.js';
import { parseAccessRecords } from '../../../proxy-config/core/diagnose/parse-access-records.js';
import { runCli } from '../../support/run-cli.js';

describe('diagnose with an access log that holds no request', () => {
  let dir: string;
  let empty: string;
  let config: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-empty-log-'));
    empty = join(dir, 'empty.log');
    await writeFile(empty, '');
    config = join(dir, 'nginx.conf');
    // A config whose only log_format writes another file: nothing says empty.log is written in it.
    await writeFile(
      config,
      [
        'events {}',
        'http {',
        '  log_format upstream_time \'$remote_addr [$time_local] "$request" $status urt=$upstream_response_time\';',
        '  server {',
        '    listen 127.0.0.1:18480;',
        `    access_log ${join(dir, 'timed.log')} upstream_time;`,
        '    location / { proxy_pass http://127.0.0.1:19101; }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['502', []],
    ['504', ['--config']],
  ])('diagnose %s %s on an empty file exits 2 with a hint, naming no format', async (symptom, extra) => {
    const args = ['diagnose', symptom, '--access-log', empty, ...extra.flatMap((flag) => [flag, config])];
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(`--access-log ${empty}: is empty, no request to diagnose from; give the file nginx writes`),
    );
    expect(stdout).not.toMatch(/format|no finding/);
  });

  it('names no format when no line was read', () => {
    expect(parseAccessRecords('', DEFAULT_LOG_FORMATS, 'access log x').format).toBeNull();
  });
});
