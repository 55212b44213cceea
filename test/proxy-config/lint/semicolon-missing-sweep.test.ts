import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';
import { testNginxConfig } from '../../../proxy-config/shell/nginx/nginx-process.js';

/** A statement as written in a server block (or, `location` first, in a location), without its `;`. */
const HEADS = [
  'access_log logs/a.log',
  'add_header X-A b',
  'client_max_body_size 1m',
  'error_log logs/e.log',
  'error_page 404 /404.html',
  'expires 1d',
  'include empty.conf',
  'index index.html',
  'keepalive_timeout 5',
  'listen 127.0.0.1:18092',
  'proxy_buffering off',
  'proxy_connect_timeout 5s',
  'proxy_http_version 1.1',
  'proxy_read_timeout 5s',
  'proxy_send_timeout 5s',
  'proxy_set_header Host $host',
  'return 200',
  'rewrite ^/a /b',
  'root /srv',
  'server_name a.example',
  'server_tokens off',
  'try_files $uri /index.html',
  'location alias /srv/',
  'location proxy_pass http://127.0.0.1:9',
];

/** The next line, a whole directive. */
const FOLLOWERS = [
  'expires off;',
  'root /srv;',
  'proxy_set_header Host $host;',
  'return 200;',
  'index a.html;',
];

const CASES = HEADS.flatMap((head) => FOLLOWERS.map((follower) => [head, follower] as const));

/**
 * Every line-leading directive's typical statement, its `;` lost before each of a few directives,
 * through the real `nginx -t` and through lint: lint never refuses what nginx accepts, warns
 * (semicolon-missing) on each of those, and refuses, naming the lost `;`, what nginx refuses.
 */
describe('a lost ";" between two directives: lint agrees with nginx -t', () => {
  let prefix: string;
  let n = 0;

  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'proxyops-semicolon-sweep-'));
    // Workers run as `nobody` when the master is root: they must be able to traverse the prefix.
    await chmod(prefix, 0o755);
    await mkdir(join(prefix, 'logs'));
    await writeFile(join(prefix, 'empty.conf'), '');
  });
  afterAll(async () => {
    await rm(prefix, { recursive: true, force: true });
  });

  it.each(CASES)('%s + %s', async (head, follower) => {
    const inLocation = head.startsWith('location ');
    const statement = inLocation ? head.slice('location '.length) : head;
    const body = inLocation
      ? ['    location /x/ {', `      ${statement}`, `      ${follower}`, '    }']
      : [`    ${statement}`, `    ${follower}`];
    const file = join(prefix, `sweep-${n++}.conf`);
    await writeFile(
      file,
      [
        `pid ${join(prefix, 'nginx.pid')};`,
        'events {}',
        'http {',
        '  server {',
        '    listen 127.0.0.1:18090;',
        ...body,
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const line = inLocation ? 7 : 6;
    const nginx = await testNginxConfig({
      confPath: file,
      prefix,
      startupErrorLog: join(prefix, 'logs', 'error.log'),
    }).then(
      () => null,
      (error: Error) => error.message,
    );
    const lint = await lintNginxConfigFiles(file, { confPrefix: prefix }).then(
      (report) => report.findings.filter((f) => f.ruleId === 'semicolon-missing').map((f) => f.line),
      (error: Error) => error.message,
    );
    if (nginx === null) expect(lint).toEqual([line]);
    else expect(lint).toMatch(new RegExp(`^${file}:${line}: missing ";" after`));
  });
});
