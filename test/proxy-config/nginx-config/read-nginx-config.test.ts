import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_BLOCK_DEPTH } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { listLocations } from '../../../proxy-config/core/nginx-config/query.js';
import { readNginxConfig } from '../../../proxy-config/shell/nginx/read-nginx-config.js';

describe('readNginxConfig', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-read-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const write = async (path: string, text: string) => {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  };

  it('splices included files in place, globs sorted, relative to the main file, with their own file:line', async () => {
    await write(
      'nginx.conf',
      'events {}\nhttp {\n  include conf.d/*.conf;\n  server {\n    include snippets/proxy.conf;\n    location / { proxy_pass http://u; }\n  }\n}\n',
    );
    await write('conf.d/b.conf', 'upstream b { server 127.0.0.1:2; }\n');
    await write('conf.d/a.conf', '\n\nupstream a { server 127.0.0.1:1; }\n');
    await write('conf.d/.hidden.conf', 'this would not parse {');
    await write('conf.d/notes.txt', 'this would not parse {');
    await write('snippets/proxy.conf', 'proxy_set_header X-Forwarded-Proto $scheme;\n');

    const config = await readNginxConfig(join(dir, 'nginx.conf'));
    const http = config.directives[1];
    expect(http?.children?.map((d) => [d.name, d.args[0], d.file.slice(dir.length), d.line])).toEqual([
      ['upstream', 'a', '/conf.d/a.conf', 3],
      ['upstream', 'b', '/conf.d/b.conf', 1],
      ['server', undefined, '/nginx.conf', 4],
    ]);
    const server = http?.children?.[2];
    expect(server?.children?.[0]).toMatchObject({
      name: 'proxy_set_header',
      file: join(dir, 'snippets/proxy.conf'),
      line: 1,
    });
    expect(config.files.map((f) => f.slice(dir.length))).toEqual([
      '/nginx.conf',
      '/conf.d/a.conf',
      '/conf.d/b.conf',
      '/snippets/proxy.conf',
    ]);
    expect(listLocations(config)).toHaveLength(1);
  });

  it('resolves includes against a given conf prefix when linting a snippet from a subdirectory', async () => {
    await write('snippets/php.conf', 'include fastcgi.conf;\n');
    await write('fastcgi.conf', 'fastcgi_param A b;\n');
    await expect(readNginxConfig(join(dir, 'snippets/php.conf'))).rejects.toMatchObject({
      code: 'NGINX_CONFIG_UNREADABLE',
    });
    const config = await readNginxConfig(join(dir, 'snippets/php.conf'), { confPrefix: dir });
    expect(config.directives).toMatchObject([{ name: 'fastcgi_param', file: join(dir, 'fastcgi.conf') }]);
  });

  it('resolves a nested include against the conf prefix, not the including file, like nginx', async () => {
    await write('nginx.conf', 'server {\n  location / {\n    include snippets/a.conf;\n  }\n}\n');
    await write('snippets/a.conf', 'include snippets/b.conf;\n');
    await write('snippets/b.conf', 'proxy_pass http://u;\n');
    const config = await readNginxConfig(join(dir, 'nginx.conf'));
    const location = config.directives[0]?.children?.[0];
    expect(location?.children).toMatchObject([
      { name: 'proxy_pass', file: join(dir, 'snippets/b.conf'), line: 1 },
    ]);
  });

  it('accepts a glob matching nothing, like nginx', async () => {
    await write('nginx.conf', 'http { include sites-enabled/*; }\n');
    const config = await readNginxConfig(join(dir, 'nginx.conf'));
    expect(config.directives[0]?.children).toEqual([]);
  });

  it('resolves includes inside map blocks into entries', async () => {
    await write('nginx.conf', 'map $uri $x {\n  include maps/x.map;\n  default 0;\n}\n');
    await write('maps/x.map', '/a 1;\n');
    const config = await readNginxConfig(join(dir, 'nginx.conf'));
    expect(config.directives[0]?.entries?.map((e) => [e.name, e.args])).toEqual([
      ['/a', ['1']],
      ['default', ['0']],
    ]);
  });

  it('names the including file:line when a plain include is missing', async () => {
    await write('nginx.conf', 'http {\n  include missing.conf;\n}\n');
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).rejects.toMatchObject({
      code: 'NGINX_CONFIG_UNREADABLE',
      message: expect.stringMatching(/nginx\.conf:2: include cannot read .*missing\.conf: ENOENT/),
    });
  });

  it('reports a syntax error at the included file:line', async () => {
    await write('nginx.conf', 'http {\n  include conf.d/*.conf;\n}\n');
    await write('conf.d/bad.conf', 'server {\n  listen 80;\n  location / {\n}\n');
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).rejects.toMatchObject({
      code: 'NGINX_CONFIG_INVALID',
      message: expect.stringMatching(
        /conf\.d\/bad\.conf:5: unexpected end of file, expecting "}" to close "server"/,
      ),
    });
  });

  it('refuses an include cycle', async () => {
    await write('nginx.conf', 'include a.conf;\n');
    await write('a.conf', 'include nginx.conf;\n');
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).rejects.toMatchObject({
      code: 'NGINX_CONFIG_INVALID',
      message: expect.stringContaining('include cycle'),
    });
  });

  it('counts block depth across includes: each file within the limit, together too deep', async () => {
    const half = MAX_BLOCK_DEPTH / 2 + 1;
    const nested = (inner: string) => 'location / {\n'.repeat(half) + inner + '}\n'.repeat(half);
    await write('nginx.conf', nested('include inner.conf;\n'));
    await write('inner.conf', nested(''));
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).rejects.toMatchObject({
      code: 'NGINX_CONFIG_INVALID',
      message: expect.stringMatching(
        new RegExp(
          `inner\\.conf:${MAX_BLOCK_DEPTH + 1 - half}: "location" block nested more than ${MAX_BLOCK_DEPTH} levels deep$`,
        ),
      ),
    });
  });

  it('checks directives where includes put them, in reading order, as nginx -t does', async () => {
    await write('nginx.conf', 'user;\nevents {}\n');
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).rejects.toMatchObject({
      code: 'NGINX_CONFIG_INVALID',
      message: `${join(dir, 'nginx.conf')}:1: invalid number of arguments in "user" directive`,
      details: { check: 'argument-count' },
    });
    // The config a running nginx accepted is read as it is (diagnose).
    const running = await readNginxConfig(join(dir, 'nginx.conf'), { checkDirectives: false });
    expect(running.directives.map((d) => d.name)).toEqual(['user', 'events']);
    // A location snippet is fine in a location, not at http level.
    await write('snippets/php.conf', 'fastcgi_index index.php;\nalias /srv/php/;\n');
    await write(
      'nginx.conf',
      'events {}\nhttp {\n  server { location / { include snippets/php.conf; } }\n}\n',
    );
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).resolves.toBeDefined();
    await write('nginx.conf', 'events {}\nhttp {\n  include snippets/php.conf;\n}\n');
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).rejects.toMatchObject({
      message: `${join(dir, 'snippets/php.conf')}:2: "alias" directive is not allowed here`,
    });
    // An include with two arguments comes after an earlier error, not before it.
    await write('nginx.conf', 'user nobody;\nsendfile on;\ninclude a.conf b.conf;\n');
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).rejects.toMatchObject({
      message: expect.stringMatching(/nginx\.conf:2: "sendfile" directive is not allowed here$/),
    });
    await write('nginx.conf', 'events {}\ninclude a.conf b.conf;\n');
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).rejects.toMatchObject({
      message: expect.stringMatching(/nginx\.conf:2: invalid number of arguments in "include" directive$/),
    });
  });

  it('refuses a file saved with a UTF-8 byte-order mark, naming it', async () => {
    await write('nginx.conf', 'events {}\nhttp {\n  include site.conf;\n}\n');
    await writeFile(join(dir, 'site.conf'), Buffer.from('\uFEFFserver { listen 80; }\n', 'utf8'));
    await expect(readNginxConfig(join(dir, 'nginx.conf'))).rejects.toMatchObject({
      code: 'NGINX_CONFIG_INVALID',
      message: expect.stringMatching(/site\.conf:1: the file starts with a UTF-8 byte-order mark/),
      details: { check: 'bom' },
    });
  });

  it('fails with NGINX_CONFIG_UNREADABLE when the main file is missing', async () => {
    await expect(readNginxConfig(join(dir, 'nope.conf'))).rejects.toMatchObject({
      code: 'NGINX_CONFIG_UNREADABLE',
    });
  });
});
