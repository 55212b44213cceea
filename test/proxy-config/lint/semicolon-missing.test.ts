import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';
import { testNginxConfig } from '../../../proxy-config/shell/nginx/nginx-process.js';

/**
 * A `;` lost at the end of a line, as found in a published /etc/nginx (the first case): nginx reads
 * the statement on to the next `;`. Each case goes through the real `nginx -t` and through lint:
 * where nginx accepts the joined statement lint warns (semicolon-missing) and goes on; where nginx
 * refuses it lint refuses too, naming the lost `;`.
 */
const ACCEPTED: Array<[string, string]> = [
  [
    'server_name play-stage.tapsell.ir\n    expires off;',
    'server_name play-stage.tapsell.ir has no ";": nginx reads "expires off" (line 6) as 2 more arguments of server_name, and expires is never applied',
  ],
  [
    'index index.html\n    expires off;',
    'index index.html has no ";": nginx reads "expires off" (line 6) as 2 more arguments of index, and expires is never applied',
  ],
  [
    'try_files $uri /index.html\n    expires 1d;',
    'try_files $uri /index.html has no ";": nginx reads "expires 1d" (line 6) as 2 more arguments of try_files, and expires is never applied',
  ],
  [
    'add_header X-Robots-Tag\n    index;',
    'add_header X-Robots-Tag has no ";": nginx reads "index" (line 6) as 1 more argument of add_header, and index is never applied',
  ],
  [
    'return 200\n    root;',
    'return 200 has no ";": nginx reads "root" (line 6) as 1 more argument of return, and root is never applied',
  ],
];

const REFUSED: Array<[string, RegExp, string]> = [
  [
    'location /api/ {\n      proxy_pass http://127.0.0.1:9\n      proxy_set_header Host $host;\n    }',
    /invalid number of arguments in "proxy_pass" directive/,
    ':6: missing ";" after "proxy_pass http://127.0.0.1:9" ("proxy_set_header" on line 7 starts a new directive)',
  ],
  [
    'add_header X-Frame-Options DENY\n    expires off;',
    /invalid number of arguments in "add_header" directive/,
    ':5: missing ";" after "add_header X-Frame-Options DENY" ("expires" on line 6 starts a new directive)',
  ],
  [
    'access_log logs/a.log\n    expires off;',
    /unknown log format "expires"/,
    ':5: missing ";" after "access_log logs/a.log" ("expires" on line 6 starts a new directive)',
  ],
  [
    'access_log logs/a.log\n    upstream;',
    /unknown log format "upstream"/,
    ':5: missing ";" after "access_log logs/a.log" ("upstream" on line 6 starts a new directive)',
  ],
  [
    'add_header X-Robots-Tag noindex\n    index;',
    /invalid parameter "index"/,
    ':5: missing ";" after "add_header X-Robots-Tag noindex" ("index" on line 6 starts a new directive)',
  ],
  [
    'error_page 404 /404.html\n    expires off;',
    /invalid value "\/404.html"/,
    ':5: missing ";" after "error_page 404 /404.html" ("expires" on line 6 starts a new directive)',
  ],
  [
    'listen 127.0.0.1:18091\n    server_name a.example;',
    /invalid parameter "server_name"/,
    ':5: missing ";" after "listen 127.0.0.1:18091" ("server_name" on line 6 starts a new directive)',
  ],
];

describe('semicolon-missing: a statement run on into the next line, judged as nginx -t does', () => {
  let prefix: string;
  let n = 0;

  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'proxyops-semicolon-'));
    // Workers run as `nobody` when the master is root: they must be able to traverse the prefix.
    await chmod(prefix, 0o755);
    await mkdir(join(prefix, 'logs'));
  });
  afterAll(async () => {
    await rm(prefix, { recursive: true, force: true });
  });

  it('takes a run-on access_log word as its format when a log_format of that name came before', async () => {
    const conf = (format: string) =>
      `pid ${join(prefix, 'nginx.pid')};\nevents {}\nhttp {\n  ${format}\n  server {\n    listen 127.0.0.1:18090;\n    access_log logs/a.log\n        upstream;\n  }\n}\n`;
    const file = join(prefix, 'format.conf');
    const target = { confPath: file, prefix, startupErrorLog: join(prefix, 'logs', 'error.log') };
    await writeFile(file, conf("log_format upstream '$remote_addr $upstream_addr';"));
    await testNginxConfig(target);
    const report = await lintNginxConfigFiles(file, { confPrefix: prefix });
    expect(report.findings.filter((f) => f.ruleId === 'semicolon-missing').map((f) => f.line)).toEqual([7]);

    await writeFile(file, conf(''));
    await expect(testNginxConfig(target)).rejects.toThrow(/unknown log format "upstream"/);
    await expect(lintNginxConfigFiles(file, { confPrefix: prefix })).rejects.toThrow(
      /missing ";" after "access_log logs\/a.log" \("upstream" on line 8 starts a new directive\)/,
    );
  });

  it('lints the published config nginx -t accepts, reporting what nginx made of the lost ";"', async () => {
    const file = join(prefix, 'wild.conf');
    await writeFile(
      file,
      `pid ${join(prefix, 'nginx.pid')};\n` +
        'events {}\nhttp {\n  server {\n    listen 127.0.0.1:18090;\n    server_name play-stage.tapsell.ir\n    expires off;\n    location / { return 200; }\n  }\n}\n',
    );
    await testNginxConfig({ confPath: file, prefix, startupErrorLog: join(prefix, 'logs', 'error.log') });
    const report = await lintNginxConfigFiles(file, { confPrefix: prefix });
    expect(report.findings.filter((f) => f.ruleId === 'semicolon-missing')).toMatchObject([
      {
        severity: 'warning',
        file,
        line: 6,
        what: 'server_name play-stage.tapsell.ir has no ";": nginx reads "expires off" (line 7) as 2 more arguments of server_name, and expires is never applied',
      },
    ]);
  });

  it('refuses with the lost ";" a run-on statement nginx refuses in its block', async () => {
    const { file, nginx } = await write(
      'location /a {\n      server_name a.example\n      expires off;\n    }',
    );
    expect(nginx).toMatch(/"server_name" directive is not allowed here/);
    await expect(lintNginxConfigFiles(file, { confPrefix: prefix })).rejects.toMatchObject({
      message: `${file}:6: missing ";" after "server_name a.example" ("expires" on line 7 starts a new directive)`,
      details: { check: 'syntax' },
    });
  });

  /** The wild config around `body` (in its server block, from line 5), with `nginx -t`'s verdict. */
  async function write(body: string): Promise<{ file: string; nginx: string | null }> {
    const file = join(prefix, `case-${n++}.conf`);
    await writeFile(
      file,
      [
        `pid ${join(prefix, 'nginx.pid')};`,
        'events {}',
        'http {',
        '  server {',
        `    ${body}`,
        '    listen 127.0.0.1:18090;',
        '    location / { return 200; }',
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const target = { confPath: file, prefix, startupErrorLog: join(prefix, 'logs', 'error.log') };
    const nginx = await testNginxConfig(target).then(
      () => null,
      (error: Error) => error.message,
    );
    return { file, nginx };
  }

  it.each(ACCEPTED)('nginx accepts %j: lint warns and goes on', async (body, what) => {
    const { file, nginx } = await write(body);
    expect(nginx).toBeNull();
    const report = await lintNginxConfigFiles(file, { confPrefix: prefix });
    const found = report.findings.filter((f) => f.ruleId === 'semicolon-missing');
    expect(found).toMatchObject([{ severity: 'warning', file, line: 5, what }]);
  });

  it.each(REFUSED)('nginx refuses %j: lint refuses with the lost ";"', async (body, refusal, message) => {
    const { file, nginx } = await write(body);
    expect(nginx).toMatch(refusal);
    await expect(lintNginxConfigFiles(file, { confPrefix: prefix })).rejects.toMatchObject({
      code: 'NGINX_CONFIG_INVALID',
      message: `${file}${message}`,
      details: { check: 'syntax' },
    });
  });
});
