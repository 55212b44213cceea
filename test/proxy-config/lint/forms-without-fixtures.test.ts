import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.js';

/**
 * Forms of the rules that cannot be fixtures: the fixtures are whole configs nginx -t accepts, but
 * these are snippets (which nginx -t cannot test) or mistakes nginx -t itself refuses, which lint
 * still has to catch in a snippet or a CI job without nginx. Run the way a user runs them.
 */
describe('config lint on snippets and on what nginx -t refuses', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-lint-forms-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function lint(text: string): Promise<Array<{ ruleId: string; line: number; what: string }>> {
    const file = join(dir, 'snippet.conf');
    await writeFile(file, text);
    const { code, stdout, stderr } = await runCli(['config', 'lint', file, '--json']);
    if (code === 2) throw new Error(stderr);
    return (JSON.parse(stdout) as { findings: Array<{ ruleId: string; line: number; what: string }> })
      .findings;
  }
  const only = async (text: string, id: string) =>
    (await lint(text)).filter((f) => f.ruleId === id).map((f) => [f.line, f.what]);

  it.each([
    ['location ~ ^/(a|b {', 'missing closing parenthesis'],
    ['location ~ "[z-a]" {', 'range out of order in character class'],
    ['location ~ "^/x{3,1}" {', 'numbers out of order in {} quantifier'],
    ['location ~ "^/\\i" {', 'unrecognized character follows \\'],
  ])('regex-invalid: %s is refused as pcre2_compile() would', async (location, message) => {
    const findings = await only(`server {\n  ${location}\n    return 404;\n  }\n}\n`, 'regex-invalid');
    expect(findings).toEqual([[2, expect.stringContaining(message)]]);
  });

  it('regex-invalid: a map or server_name pattern too', async () => {
    const text =
      'map $uri $x {\n  default 0;\n  "~^/(a" 1;\n}\nserver {\n  server_name "~^(www\\.example\\.com$";\n}\n';
    expect((await only(text, 'regex-invalid')).map(([line]) => line)).toEqual([3, 6]);
  });

  it('worker-processes-missing never fires on a snippet, only on a whole config', async () => {
    const snippet = 'server {\n  listen 8080;\n}\n';
    expect(await only(snippet, 'worker-processes-missing')).toEqual([]);
    expect(await only(`events {}\nhttp {\n${snippet}}\n`, 'worker-processes-missing')).toEqual([
      [1, 'worker_processes is not set: nginx starts one worker'],
    ]);
  });

  it('default-server-duplicate: a second default_server on one socket, in a snippet too', async () => {
    const text =
      'server {\n  listen 0.0.0.0:80 default_server;\n}\nserver {\n  listen 80 default_server;\n}\n';
    expect(await only(text, 'default-server-duplicate')).toEqual([
      [5, expect.stringContaining('a second default_server on *:80')],
    ]);
    // nginx -t's refusal, not a missing default: one finding for one mistake.
    expect(await only(`events {}\nhttp {\n${text}}\n`, 'default-server-missing')).toEqual([]);
  });

  it('default-server-missing: a server without listen shares *:80 with listen 80', async () => {
    expect(
      // A whole config: in a snippet the default server may sit in another file.
      (
        await only(
          'events {}\nhttp {\nserver {\n  server_name a;\n}\nserver {\n  listen 80;\n}\n}\n',
          'default-server-missing',
        )
      ).length,
    ).toBe(1);
  });

  it("upstream-dns-stale: `resolve` servers are re-resolved (a missing resolver is upstream-resolve-refused's); IPs and unix sockets are fine", async () => {
    const upstream = (servers: string) => `upstream app {\n  zone app 64k;\n${servers}}\n`;
    expect(await only(upstream('  server app.internal:80 resolve;\n'), 'upstream-dns-stale')).toEqual([]);
    expect(
      await only(
        `resolver 127.0.0.53;\n${upstream('  server app.internal:80 resolve;\n')}`,
        'upstream-dns-stale',
      ),
    ).toEqual([]);
    expect(
      await only(
        upstream('  server [::1]:80;\n  server unix:/run/app.sock;\n  server 10.0.0.1;\n'),
        'upstream-dns-stale',
      ),
    ).toEqual([]);
  });

  it('upstream-dns-stale: a variable proxy_pass needs a resolver only when its value is a name', async () => {
    const config = (value: string) =>
      `upstream pool_a {\n  server 10.0.0.1:80;\n}\nmap $host $target {\n  default ${value};\n}\nserver {\n  location / {\n    proxy_pass http://$target;\n  }\n}\n`;
    expect(await only(config('pool_a'), 'upstream-dns-stale')).toEqual([]);
    expect(await only(config('10.0.0.2:8080'), 'upstream-dns-stale')).toEqual([]);
    expect(await only(config('localhost:8080'), 'upstream-dns-stale')).toEqual([
      [9, expect.stringContaining('resolves localhost per request, but no resolver is set')],
    ]);
    // A whole URL in the variable, and a value nothing spells out (nothing to say).
    expect(
      await only(
        'server {\n  set $u https://api.example.com/v1;\n  location / {\n    proxy_pass $u;\n  }\n}\n',
        'upstream-dns-stale',
      ),
    ).toEqual([[4, expect.stringContaining('resolves api.example.com')]]);
    expect(
      await only(
        'server {\n  location / {\n    proxy_pass http://$http_x_backend;\n  }\n}\n',
        'upstream-dns-stale',
      ),
    ).toEqual([]);
  });

  it('resolver-external: local, private, link-local and ULA addresses are not external; names are', async () => {
    expect(
      await only(
        'resolver 127.0.0.1:5353 10.0.0.2 169.254.169.253 [fd00::53] [::1] localhost ipv6=off;',
        'resolver-external',
      ),
    ).toEqual([]);
    expect(
      await only('resolver 1.1.1.1 dns.example.com [2606:4700:4700::1111];', 'resolver-external'),
    ).toEqual([[1, expect.stringContaining('1.1.1.1 dns.example.com [2606:4700:4700::1111]')]]);
  });

  it('tls-ciphers-weak: a weak family removed by ! later in the string is not reported', async () => {
    expect(await only('ssl_ciphers RC4-SHA:HIGH:!RC4;', 'tls-ciphers-weak')).toEqual([]);
    expect(await only('proxy_ssl_ciphers ECDHE-RSA-DES-CBC3-SHA:HIGH;', 'tls-ciphers-weak')).toEqual([
      [1, 'proxy_ssl_ciphers enables ECDHE-RSA-DES-CBC3-SHA'],
    ]);
  });

  it('keepalive-requests-low: 0 closes after every request; upstream values are exempt', async () => {
    expect(
      await only(
        'keepalive_requests 0;\nupstream u {\n  server 10.0.0.1;\n  keepalive_requests 50;\n}\n',
        'keepalive-requests-low',
      ),
    ).toEqual([[1, 'keepalive_requests 0']]);
  });

  it('map-without-default: a single entry without default is the "set only here" idiom', async () => {
    expect(await only('map $http_x_key $limit_key {\n  secret "";\n}\n', 'map-without-default')).toEqual([]);
  });

  it('regex-redos also reads if, rewrite, server_name and valid_referers patterns', async () => {
    const text = [
      'server {',
      '  server_name "~^(\\w+\\.?)+$";',
      '  valid_referers "~^(a+)+\\.example$";',
      '  if ($http_user_agent ~* "(\\w+\\s?)*x") {',
      '    return 403;',
      '  }',
      '  rewrite "^/(a|a)*$" /b last;',
      '}',
      '',
    ].join('\n');
    expect((await only(text, 'regex-redos')).map(([line]) => line)).toEqual([2, 3, 4, 7]);
  });

  it('reads `nginx -T` output as the files it dumps: findings name each file and its own line', async () => {
    const file = join(dir, 'dump.txt');
    await writeFile(
      file,
      '# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp {\n    include conf.d/*.conf;\n}\n\n' +
        '# configuration file /etc/nginx/conf.d/app.conf:\nserver {\n    listen 80;\n    location /admin/ {\n        allow 10.0.0.0/8;\n    }\n}\n\n',
    );
    const { code, stdout } = await runCli(['config', 'lint', file, '--json']);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as {
      mainFile: string;
      files: string[];
      findings: Array<{ ruleId: string; file: string; line: number }>;
    };
    expect(report.mainFile).toBe('/etc/nginx/nginx.conf');
    expect(report.files).toEqual(['/etc/nginx/nginx.conf', '/etc/nginx/conf.d/app.conf']);
    expect(report.findings.filter((f) => f.ruleId === 'allow-without-deny')).toEqual([
      expect.objectContaining({ file: '/etc/nginx/conf.d/app.conf', line: 4 }),
    ]);
  });

  it('finds an include of a file the dump does not hold (include-missing: nginx would refuse it)', async () => {
    const file = join(dir, 'dump-missing.txt');
    await writeFile(
      file,
      '# configuration file /etc/nginx/nginx.conf:\nevents {}\nhttp {\n    include /etc/nginx/extra.conf;\n}\n',
    );
    const { code, stdout } = await runCli(['config', 'lint', file, '--json']);
    expect(code).toBe(0);
    const findings = (JSON.parse(stdout) as { findings: Array<{ ruleId: string; what: string }> }).findings;
    expect(findings.filter((f) => f.ruleId === 'include-missing')).toEqual([
      expect.objectContaining({ what: expect.stringContaining('not in the nginx -T output') }),
    ]);
  });
});
