import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.js';

interface JsonFinding {
  ruleId: string;
  severity: string;
  file: string;
  line: number;
  what: string;
  contexts?: string[];
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'proxyops-lint-include-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Writes files under a fresh directory; returns their paths by name. */
async function layout(name: string, files: Record<string, string>): Promise<string> {
  const root = join(dir, name);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

async function lint(args: string[]): Promise<{ code: number; findings: JsonFinding[]; stderr: string }> {
  const { code, stdout, stderr } = await runCli(['config', 'lint', '--json', ...args]);
  return {
    code,
    stderr,
    findings: code === 2 ? [] : (JSON.parse(stdout) as { findings: JsonFinding[] }).findings,
  };
}

describe('one finding per place', () => {
  it('reports a snippet included into two servers once, listing both servers', async () => {
    const root = await layout('twice', {
      'nginx.conf': 'events {}\nhttp {\n  include sites/*.conf;\n}\n',
      'sites/a.conf':
        'server {\n  listen 80;\n  server_name a.example;\n  include snippets/static.conf;\n}\n',
      'sites/b.conf':
        'server {\n  listen 80;\n  server_name b.example;\n  include snippets/static.conf;\n}\n',
      'snippets/static.conf': 'location /static {\n  alias /srv/static/;\n}\n',
    });
    const { findings } = await lint([join(root, 'nginx.conf')]);
    const alias = findings.filter((f) => f.ruleId === 'alias-traversal');
    expect(alias).toHaveLength(1);
    expect(alias[0]?.file).toBe(join(root, 'snippets/static.conf'));
    expect(alias[0]?.contexts).toEqual([
      `server a.example (${join(root, 'sites/a.conf')}:1)`,
      `server b.example (${join(root, 'sites/b.conf')}:1)`,
    ]);
    const { stdout } = await runCli(['config', 'lint', '--quiet', join(root, 'nginx.conf')]);
    expect(stdout).toContain('(included in server a.example');
  });
});

describe('snippets in their context', () => {
  it('reads a file of conf.d or sites-enabled inside http, as the stock Debian nginx.conf includes it', async () => {
    const root = await layout('stock', {
      // Both read in server context would refuse limit_req_zone; in location, the server block.
      'conf.d/security.conf':
        'add_header X-Frame-Options SAMEORIGIN always;\nlimit_req_zone $binary_remote_addr zone=one:10m rate=1r/s;\n',
      'sites-enabled/app':
        'server {\n  listen 80;\n  server_name app.example;\n  location /app {\n    alias /srv/app/;\n  }\n}\n',
    });
    const conf = await lint([join(root, 'conf.d/security.conf')]);
    expect(conf.code).toBe(0);
    const site = await lint([join(root, 'sites-enabled/app')]);
    expect(site.findings.map((f) => f.ruleId)).toContain('alias-traversal');
  });

  it('lints a snippet in the first context where nginx accepts it whole, instead of refusing it', async () => {
    // gixy's add_header_redefinition/if_replaces.conf: an if holding add_header is a location's.
    const root = await layout('if-snippet', {
      'headers.conf': 'add_header X-Frame-Options "DENY" always;\n\nif (1) {\n  add_header X-Foo foo;\n}\n',
    });
    const { code, findings, stderr } = await lint([join(root, 'headers.conf')]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(findings.map((f) => `${f.ruleId}@${f.line}`)).toContain('add-header-dropped@4');
  });

  it('--context says it outright, and what nginx -t refuses there is a finding', async () => {
    const root = await layout('declared', {
      'api.conf': 'location /api {\n  proxy_pass http://127.0.0.1:3000/;\n}\n',
    });
    const inServer = await lint(['--context', 'server', join(root, 'api.conf')]);
    expect(inServer.findings.map((f) => f.ruleId)).toContain('proxy-pass-slash-mismatch');
    const inHttp = await lint(['--context', 'http', join(root, 'api.conf')]);
    expect(inHttp.code).toBe(1);
    expect(inHttp.stderr).toBe('');
    expect(inHttp.findings.filter((f) => f.ruleId === 'directive-not-allowed')).toEqual([
      expect.objectContaining({
        severity: 'error',
        line: 1,
        what: '"location" directive is not allowed here (in http; nginx takes it in server, location)',
      }),
    ]);
  });
});

describe('a missing include is a finding, not a stop', () => {
  it('reports include-missing and lints the rest', async () => {
    const root = await layout('missing', {
      'nginx.conf':
        'events {}\nhttp {\n  include mime.types;\n  server {\n    listen 80;\n    include snippets/letsencrypt.conf;\n    location /static {\n      alias /srv/static/;\n    }\n  }\n}\n',
      'mime.types': 'types {\n  text/html html;\n}\n',
    });
    const { code, findings } = await lint([join(root, 'nginx.conf')]);
    expect(code).toBe(1); // alias-traversal, an error, found past the missing include
    expect(findings.filter((f) => f.ruleId === 'include-missing')).toEqual([
      expect.objectContaining({
        severity: 'warning',
        line: 6,
        what: expect.stringMatching(
          /^include snippets\/letsencrypt\.conf: ENOENT: no such file or directory/,
        ),
      }),
    ]);
    expect(findings.map((f) => f.ruleId)).toContain('alias-traversal');
  });

  it('assumes the stock files every nginx installs (mime.types, fastcgi_params, ...) away from /etc/nginx', async () => {
    // gunicorn's and Nextcloud's samples include them and publish neither.
    const root = await layout('stock-files', {
      'nginx.conf':
        'events {}\nhttp {\n  include mime.types;\n  server {\n    listen 80;\n    include snippets/snakeoil.conf;\n    include /etc/nginx/fastcgi_params;\n    include proxy.conf;\n  }\n}\n',
    });
    const { findings } = await lint([join(root, 'nginx.conf')]);
    expect(findings.filter((f) => f.ruleId === 'include-missing').map((f) => f.line)).toEqual([8]);
    // snakeoil.conf holds the certificate: the server is still not asked for one.
    expect(findings.map((f) => f.ruleId)).not.toContain('ssl-certificate-missing');
  });

  it('still reports a stock file missing from a config read from /etc/nginx (an nginx -T dump)', async () => {
    const root = await layout('stock-dump', {
      'web1.conf':
        '# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp {\n  include mime.types;\n}\n',
    });
    const { findings } = await lint([join(root, 'web1.conf')]);
    expect(findings.filter((f) => f.ruleId === 'include-missing')).toEqual([
      expect.objectContaining({ file: '/etc/nginx/nginx.conf', line: 3 }),
    ]);
  });
});

describe('a directive nginx refuses in its context', () => {
  it('is directive-not-allowed only: no other rule reads what nginx would never apply', async () => {
    const root = await layout('refused-tls', {
      'tls.conf': 'ssl_protocols TLSv1 TLSv1.1 TLSv1.2;\nadd_header X-Frame-Options DENY;\n',
    });
    const { findings } = await lint(['--context', 'location', join(root, 'tls.conf')]);
    expect(findings.map((f) => `${f.ruleId}@${f.line}`)).toEqual(['directive-not-allowed@1']);
  });

  it('hides only its own findings: another directive on the same line is still judged', async () => {
    const server = (location: string) =>
      `events {}\nhttp {\n  server {\n    listen 80;\n    server_name app.example;\n${location}  }\n}\n`;
    const oneLine = await layout('refused-one-line', {
      'nginx.conf': server(
        '    location / { ssl_stapling on; proxy_set_header Host $host; proxy_set_header Host $host; proxy_pass http://127.0.0.1:8080; }\n',
      ),
    });
    const split = await layout('refused-split', {
      'nginx.conf': server(
        '    location / {\n      ssl_stapling on;\n      proxy_set_header Host $host;\n      proxy_set_header Host $host;\n      proxy_pass http://127.0.0.1:8080;\n    }\n',
      ),
    });
    const ids = async (root: string) =>
      (await lint([join(root, 'nginx.conf')])).findings
        .map((f) => f.ruleId)
        .filter((id) => id === 'directive-not-allowed' || id === 'proxy-set-header-duplicate');
    expect(await ids(split)).toEqual(['directive-not-allowed', 'proxy-set-header-duplicate']);
    expect(await ids(oneLine)).toEqual(['directive-not-allowed', 'proxy-set-header-duplicate']);
  });

  it('still hides what other rules say of the refused directive itself on such a line', async () => {
    // proxy_pass is refused straight in server; the proxy_set_header lines beside it are not.
    const root = await layout('refused-pass-one-line', {
      'nginx.conf':
        'events {}\nhttp {\n  server {\n    listen 80;\n    server_name app.example;\n    proxy_pass $arg_url; proxy_set_header Host $host; proxy_set_header Host $host;\n  }\n}\n',
    });
    const { findings } = await lint([join(root, 'nginx.conf')]);
    const atLine = findings.filter((f) => f.line === 6).map((f) => f.ruleId);
    expect(atLine).toContain('directive-not-allowed');
    expect(atLine).toContain('proxy-set-header-duplicate');
    expect(atLine).not.toContain('proxy-pass-ssrf');
  });
});

describe('a wildcard include matching a dangling symlink', () => {
  it('names the link and where it points (nginx -t: open() "…/sites-enabled/gone" failed)', async () => {
    const root = await layout('dangling', {
      'nginx.conf': 'events {}\nhttp {\n  include sites-enabled/*;\n}\n',
    });
    await mkdir(join(root, 'sites-enabled'));
    await symlink('../sites-available/gone', join(root, 'sites-enabled', 'gone'));
    const { findings } = await lint([join(root, 'nginx.conf')]);
    expect(findings.filter((f) => f.ruleId === 'include-missing')).toEqual([
      expect.objectContaining({
        line: 3,
        what: `include sites-enabled/*: ${join(root, 'sites-enabled', 'gone')} is a symlink to ../sites-available/gone, which does not exist (ENOENT: no such file or directory); linted without it`,
      }),
    ]);
  });
});

describe("a checkout of someone's /etc/nginx", () => {
  // CSUA/services-nginx, HackspaceJena/nginx-config, nginxconfig.io's output: a repository of
  // /etc/nginx whose nginx.conf includes /etc/nginx/... by absolute path (this host has Debian's
  // nginx, with its own /etc/nginx/modules-enabled/*.conf, proxy_params, sites-available/default).
  const nginxConf =
    'events {}\ninclude /etc/nginx/modules-enabled/*.conf;\nhttp {\n  include /etc/nginx/mime.types;\n  include /etc/nginx/sites-enabled/*;\n  include /etc/nginx/proxy_params;\n}\n';
  const lintReport = async (args: string[]) => {
    const { code, stdout, stderr } = await runCli(['config', 'lint', '--json', ...args]);
    if (code === 2) throw new Error(stderr);
    return JSON.parse(stdout) as { files: string[]; findings: JsonFinding[] };
  };

  it("reads them from the checkout, never from this host's /etc/nginx", async () => {
    const root = await layout('etc-checkout', {
      'nginx.conf': nginxConf,
      'sites-available/app': 'server {\n  listen 80;\n  server_name app.example;\n}\n',
    });
    await mkdir(join(root, 'sites-enabled'));
    // Debian's links as the checkout holds them: absolute, into /etc/nginx.
    await symlink('/etc/nginx/sites-available/app', join(root, 'sites-enabled', 'app'));
    await symlink('/etc/nginx/sites-available/default', join(root, 'sites-enabled', 'default'));
    const report = await lintReport([join(root, 'nginx.conf')]);
    expect(report.files).toEqual([join(root, 'nginx.conf'), join(root, 'sites-available/app')]);
    // proxy_params and the default site are this host's, not the checkout's: missing, as for a
    // relative include (mime.types is a stock file, assumed).
    expect(
      report.findings.filter((f) => f.ruleId === 'include-missing').map((f) => [f.line, f.what]),
    ).toEqual([
      [
        5,
        expect.stringContaining(
          `${join(root, 'sites-enabled/default')} is a symlink to /etc/nginx/sites-available/default`,
        ),
      ],
      [6, expect.stringMatching(/^include \/etc\/nginx\/proxy_params: .*ENOENT/)],
    ]);
  });

  it('reads them from --conf-prefix when the main file sits elsewhere', async () => {
    const root = await layout('etc-checkout-prefix', {
      'conf/nginx.conf': nginxConf,
      'modules-enabled/50-echo.conf': '# load_module modules/ngx_http_echo_module.so;\n',
      proxy_params: 'proxy_set_header Host $host;\n',
    });
    const report = await lintReport(['--conf-prefix', root, join(root, 'conf/nginx.conf')]);
    expect(report.files).toEqual([
      join(root, 'conf/nginx.conf'),
      join(root, 'modules-enabled/50-echo.conf'),
      join(root, 'proxy_params'),
    ]);
  });
});

describe('a symlinked directory on the way to an include', () => {
  it('reads a relative link target from the real directory, as the kernel does (nginx -t reads it)', async () => {
    // main/sites-enabled -> <real>/sites-enabled, whose app.conf -> ../sites-available/app.conf:
    // the target is beside the real sites-enabled, not beside main/sites-enabled.
    const real = await layout('dir-link-real', {
      'sites-available/app.conf': 'server {\n  listen 80;\n  server_name app.example;\n}\n',
    });
    await mkdir(join(real, 'sites-enabled'));
    await symlink('../sites-available/app.conf', join(real, 'sites-enabled', 'app.conf'));
    const main = await layout('dir-link-main', {
      'nginx.conf': 'events {}\nhttp {\n  include sites-enabled/app.conf;\n}\n',
    });
    await symlink(join(real, 'sites-enabled'), join(main, 'sites-enabled'));
    const { code, stdout, stderr } = await runCli(['config', 'lint', '--json', join(main, 'nginx.conf')]);
    expect(stderr).toBe('');
    const report = JSON.parse(stdout) as { files: string[]; findings: JsonFinding[] };
    expect(code).not.toBe(2);
    expect(report.findings.filter((f) => f.ruleId === 'include-missing')).toEqual([]);
    expect(report.files).toEqual([join(main, 'nginx.conf'), join(main, 'sites-enabled', 'app.conf')]);
  });
});

describe("a checkout's directory linked into /etc/nginx", () => {
  // This host has Debian's nginx: /etc/nginx/snippets/fastcgi-php.conf exists and must not be read.
  const readsNothingOfThisHost = (files: string[]) =>
    expect(files.filter((f) => f === '/etc/nginx' || f.startsWith('/etc/nginx/'))).toEqual([]);

  it('reads the directory in the checkout: a link to /etc/nginx/snippets is the checkout’s snippets', async () => {
    const root = await layout('dir-link-etc', {
      'conf/nginx.conf': 'events {}\nhttp {\n  include sites/app.conf;\n}\n',
      'conf/sites/app.conf':
        'server {\n  listen 80;\n  location ~ \\.php$ {\n    include sites/snippets/fastcgi-php.conf;\n  }\n}\n',
      'conf/snippets/fastcgi-php.conf': 'fastcgi_pass unix:/run/php/php-fpm.sock;\n',
    });
    // The vhost's own snippets/ is a link to the host's, which this copy stands for.
    await symlink('/etc/nginx/snippets', join(root, 'conf/sites/snippets'));
    const report = await lintFiles([join(root, 'conf/nginx.conf')]);
    readsNothingOfThisHost(report.files);
    expect(report.files).toContain(join(root, 'conf/snippets/fastcgi-php.conf'));
  });

  it('reads nothing when the copy has no such file (a stock one, assumed, so no finding)', async () => {
    const root = await layout('dir-link-etc-missing', {
      'nginx.conf':
        'events {}\nhttp {\n  server {\n    listen 80;\n    include snippets/fastcgi-php.conf;\n  }\n}\n',
    });
    await symlink('/etc/nginx/snippets', join(root, 'snippets'));
    const report = await lintFiles([join(root, 'nginx.conf')]);
    readsNothingOfThisHost(report.files);
    expect(report.files).toEqual([join(root, 'nginx.conf')]);
    expect(report.findings.filter((f) => f.ruleId === 'include-missing')).toEqual([]);
  });

  it('reports include-missing for a file of its own that the copy lacks, naming the link', async () => {
    const root = await layout('dir-link-etc-own', {
      'nginx.conf':
        'events {}\nhttp {\n  server {\n    listen 80;\n    include snippets/site.conf;\n  }\n}\n',
    });
    await symlink('/etc/nginx/snippets', join(root, 'snippets'));
    const report = await lintFiles([join(root, 'nginx.conf')]);
    readsNothingOfThisHost(report.files);
    expect(report.findings.filter((f) => f.ruleId === 'include-missing')).toEqual([
      expect.objectContaining({
        line: 5,
        what: expect.stringContaining(`${join(root, 'snippets')} is a symlink to /etc/nginx/snippets`),
      }),
    ]);
  });

  it('lists a wildcard include in the checkout, not in this host’s directory', async () => {
    const root = await layout('dir-link-etc-glob', {
      'nginx.conf': 'events {}\nhttp {\n  server {\n    listen 80;\n    include snippets/*.conf;\n  }\n}\n',
    });
    await symlink('/etc/nginx/snippets', join(root, 'snippets'));
    const report = await lintFiles([join(root, 'nginx.conf')]);
    readsNothingOfThisHost(report.files);
    expect(report.files).toEqual([join(root, 'nginx.conf')]);
  });
});

describe('a vhost drafted outside /etc/nginx', () => {
  it('gets include-missing for /etc/nginx/snippets/x.conf, whose fix names --conf-prefix /etc/nginx', async () => {
    const root = await layout('drafted-vhost', {
      'app.conf':
        'server {\n  listen 80;\n  server_name app.example;\n  include /etc/nginx/snippets/proxyops-absent.conf;\n}\n',
    });
    const { stdout } = await runCli(['config', 'lint', '--json', join(root, 'app.conf')]);
    const findings = (JSON.parse(stdout) as { findings: Array<JsonFinding & { fix: string }> }).findings;
    expect(findings.filter((f) => f.ruleId === 'include-missing')).toEqual([
      expect.objectContaining({ line: 4, fix: expect.stringContaining('--conf-prefix /etc/nginx') }),
    ]);
  });
});

async function lintFiles(args: string[]): Promise<{ files: string[]; findings: JsonFinding[] }> {
  const { code, stdout, stderr } = await runCli(['config', 'lint', '--json', ...args]);
  if (code === 2) throw new Error(stderr);
  return JSON.parse(stdout) as { files: string[]; findings: JsonFinding[] };
}
