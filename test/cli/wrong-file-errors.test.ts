import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokedName } from '../../cli/invoked-name.js';

const CLI = join(process.cwd(), 'dist', 'cli', 'main.js');

/** Debian's stock /etc/nginx/nginx.conf, shortened: what a user at a stranger's server gives as --spec. */
const DEBIAN_NGINX_CONF = `user www-data;
worker_processes auto;
pid /run/nginx.pid;
include /etc/nginx/modules-enabled/*.conf;

events {
\tworker_connections 768;
}

http {
\tsendfile on;
\taccess_log /var/log/nginx/access.log;
\tinclude /etc/nginx/sites-enabled/*;
}
`;

const SITE = `server {
    listen 80;
    server_name app.example.org;
    location / {
        proxy_pass http://127.0.0.1:3000;
    }
}
`;

describe('the wrong file, or no file, where a spec belongs: one line that says what to give', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-wrong-file-'));
    await writeFile(join(dir, 'nginx.conf'), DEBIAN_NGINX_CONF);
    await writeFile(join(dir, 'app'), SITE);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const run = (...args: string[]) => execa('node', [CLI, ...args], { reject: false, cwd: dir });

  it('--spec nginx.conf (a main config or a site) says it is an nginx config and what reads one', async () => {
    // Commands are named as the user ran proxyops (npx proxyops, ./proxyops …), so they can be copied.
    const name = invokedName(process.env, ['node', CLI], dir);
    for (const [file, args] of [
      ['nginx.conf', ['config', 'render', '--spec']],
      ['app', ['config', 'validate', '--spec']],
      ['nginx.conf', ['deploy', 'plan', '--target', join(dir, 'target'), '--spec']],
    ] as const) {
      const result = await run(...args, join(dir, file));
      expect(result.exitCode, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(
        `proxyops: ${join(dir, file)}: this is an nginx config, not a proxyops spec (YAML/JSON: see docs/proxy-config.md); ` +
          `--spec takes a spec, and \`${name} config lint FILE\` or \`${name} diagnose SYMPTOM --config FILE\` (SYMPTOM: 502, 504, 413 …) read an nginx config`,
      );
    }
  });

  it('deploy --replace without --spec (and no local stack) says what a hand-over needs, not "no local stack"', async () => {
    const result = await run(
      'deploy',
      '--dir',
      join(dir, 'none'),
      '--replace',
      '127.0.0.1:3000',
      '--with',
      '127.0.0.1:3001',
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toBe(
      'proxyops: --replace needs --spec FILE with --target DIR and --upstream NAME: the spec names the upstream whose instance it hands over',
    );
  });
});
