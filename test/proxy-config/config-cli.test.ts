import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const API_EXAMPLE = join(import.meta.dirname, '../../proxy-config/examples/api-front.yaml');

describe('proxyops config (CLI)', () => {
  let dir: string;
  const spec = async (name: string, data: unknown) => {
    const path = join(dir, name);
    await writeFile(path, typeof data === 'string' ? data : JSON.stringify(data));
    return path;
  };
  const valid = () => ({
    version: 1,
    paths: { pidFile: join(dir, 'run', 'nginx.pid'), tempDir: join(dir, 'run') },
    accessLog: { path: join(dir, 'run', 'access.log') },
    errorLog: { path: join(dir, 'run', 'error.log') },
    upstreams: { api: { servers: [{ host: '127.0.0.1', port: 8080 }] } },
    servers: [{ names: ['a.test'], listen: [{ port: 8080 }], routes: [{ path: '/', upstream: 'api' }] }],
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-cli-'));
    await chmod(dir, 0o755);
    await mkdir(join(dir, 'run'), { mode: 0o755 });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('render prints the config, and --out writes byte-identical files on every run', async () => {
    const printed = await runCli(['config', 'render', '--spec', API_EXAMPLE]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('upstream api {');
    const first = await runCli(['config', 'render', '--spec', API_EXAMPLE, '--out', join(dir, 'out1')]);
    const second = await runCli(['config', 'render', '--spec', API_EXAMPLE, '--out', join(dir, 'out2')]);
    expect(first.stdout).toBe(`wrote ${join(dir, 'out1', 'nginx.conf')}\n`);
    expect(second.code).toBe(0);
    const a = await readFile(join(dir, 'out1', 'nginx.conf'));
    expect(a.equals(await readFile(join(dir, 'out2', 'nginx.conf')))).toBe(true);
    expect(a.toString()).toBe(printed.stdout);
  });

  it('render of a spec whose routes cache prints nginx.conf alone and names the script --out also writes', async () => {
    const base = valid();
    const path = await spec('cached.json', {
      ...base,
      servers: [{ ...base.servers[0], routes: [{ path: '/', upstream: 'api', cache: true }] }],
    });
    const printed = await runCli(['config', 'render', '--spec', path]);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toMatch(/^# Rendered by proxyops/);
    expect(printed.stdout).not.toContain('export default');
    expect(printed.stderr).toBe(
      'proxyops: nginx.conf also loads proxyops-cache-age.js from its directory; use --out DIR to write every file\n',
    );
    const written = await runCli(['config', 'render', '--spec', path, '--out', join(dir, 'cached')]);
    expect(written.stdout).toBe(
      `wrote ${join(dir, 'cached', 'nginx.conf')}\nwrote ${join(dir, 'cached', 'proxyops-cache-age.js')}\n`,
    );
    expect(await readFile(join(dir, 'cached', 'nginx.conf'), 'utf8')).toBe(printed.stdout);
  });

  it('validate passes an example: spec, lint of the rendered config, nginx -t', async () => {
    const result = await runCli(['config', 'validate', '--spec', API_EXAMPLE]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/api-front\.yaml: spec valid \(1 upstream, 1 server, host mode\)/);
    expect(result.stdout).toMatch(/lint of the rendered config:/);
    expect(result.stdout).toMatch(/^nginx -t: ok/m);
  });

  it('validate names a lint finding of the rendered config as nginx.conf:LINE, not a path under the cwd', async () => {
    const base = valid();
    const route = { path: '/', upstream: 'api', snippets: ['proxy_set_header X-Original $uri'] };
    const path = await spec('splitting.json', {
      ...base,
      servers: [{ ...base.servers[0], routes: [route] }],
    });
    const result = await runCli(['config', 'validate', '--spec', path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^nginx\.conf:\d+ +error +http-splitting +proxy_set_header X-Original \$uri/m,
    );
  });

  it('validate exits 2 naming path and rule for schema and cross-field errors, and for unreadable specs', async () => {
    const badPort = valid();
    badPort.upstreams.api.servers.push({ host: '127.0.0.1', port: 70000 });
    const schema = await runCli(['config', 'validate', '--spec', await spec('port.json', badPort)]);
    expect(schema.code).toBe(2);
    expect(schema.stderr).toContain('upstreams.api.servers[1].port: must be <= 65535 [maximum]');

    const chain = { ...valid(), timeouts: { outerLoadBalancer: 30, proxyRead: 30 } };
    const cross = await runCli(['config', 'validate', '--spec', await spec('chain.json', chain)]);
    expect(cross.code).toBe(2);
    expect(cross.stderr).toContain(
      'timeouts.proxyRead: must be shorter than timeouts.outerLoadBalancer (30 s), is 30 s [proxy-timeout-below-outer]',
    );

    expect((await runCli(['config', 'validate', '--spec', join(dir, 'missing.yaml')])).code).toBe(2);
    const yaml = await runCli(['config', 'validate', '--spec', await spec('broken.yaml', 'version: [1\n')]);
    expect(yaml.code).toBe(2);
    expect(yaml.stderr).toMatch(/broken\.yaml:\d+:\d+: not valid YAML/);
  });

  it('validate exits 1 with nginx own message when nginx -t fails', async () => {
    const data = valid();
    data.servers.push({ ...data.servers[0]!, names: ['b.test'] });
    data.servers.forEach((s) => (s.listen = [{ port: 8080, defaultServer: true } as { port: number }]));
    const result = await runCli(['config', 'validate', '--spec', await spec('dup.json', data)]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /nginx: \[emerg\] a duplicate default server for 0\.0\.0\.0:8080 in nginx\.conf:\d+/,
    );
  });

  it('apply installs into an empty target when nginx is not running; rollback needs a previous version', async () => {
    const target = join(dir, 'target');
    const applied = await runCli([
      'config',
      'apply',
      '--spec',
      await spec('ok.json', valid()),
      '--target',
      target,
    ]);
    expect(applied.stderr).toMatch(/^validated: nginx -t ok\nswapped: current -> v0001\n/);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toBe(`applied v0001: ${join(target, 'current', 'nginx.conf')}\n`);
    expect(applied.stderr).toMatch(/nginx is not running: installed only/);
    const rollback = await runCli(['config', 'rollback', '--target', target]);
    expect(rollback.code).toBe(1);
    expect(rollback.stderr).toMatch(/no previous version to roll back to/);
    const nowhere = await runCli(['config', 'rollback', '--target', join(dir, 'no-such-target')]);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/no-such-target does not exist/);
    expect(
      (await runCli(['config', 'apply', '--spec', 'x', '--target', target, '--rollback-on-5xx', '2'])).code,
    ).toBe(2);
  });

  it('diff shows what apply would change (exit 0 same, 1 different, 2 trouble); history and rollback --to', async () => {
    const target = join(dir, 'planned');
    const first = await spec('plan-1.json', valid());
    const empty = await runCli(['config', 'diff', '--spec', first, '--target', target]);
    expect(empty.code).toBe(1);
    expect(empty.stdout).toMatch(/^--- \/dev\/null\n\+\+\+ rendered\/nginx\.conf\n@@ -0,0 \+1,\d+ @@\n/);
    expect((await runCli(['config', 'apply', '--spec', first, '--target', target])).code).toBe(0);

    const same = await runCli(['config', 'diff', '--spec', first, '--target', target]);
    expect(same).toMatchObject({ code: 0, stdout: '' });
    expect(same.stderr).toMatch(/no change: v0001 already holds this render/);
    const again = await runCli(['config', 'apply', '--spec', first, '--target', target]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^unchanged v0001: .*\(nothing written, no reload\)\n$/);

    const moved = valid();
    moved.upstreams.api.servers = [{ host: '127.0.0.1', port: 8081 }];
    const second = await spec('plan-2.json', moved);
    const changed = await runCli(['config', 'diff', '--spec', second, '--target', target]);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('--- v0001/nginx.conf\n+++ rendered/nginx.conf\n');
    expect(changed.stdout).toMatch(/^-\s+server 127\.0\.0\.1:8080\b.*$/m);
    expect(changed.stdout).toMatch(/^\+\s+server 127\.0\.0\.1:8081\b.*$/m);
    expect((await runCli(['config', 'apply', '--spec', second, '--target', target])).code).toBe(0);

    const history = await runCli(['config', 'history', '--target', target]);
    expect(history.code).toBe(0);
    const [v1, v2] = history.stdout.trimEnd().split('\n');
    expect(v1).toMatch(
      /^v0001 {2}previous {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {2}spec [0-9a-f]{12} {2}first version$/,
    );
    expect(v2).toMatch(
      /^v0002 {2}current {2}.* upstream api: -127\.0\.0\.1:8080 \+127\.0\.0\.1:8081; nginx\.conf \+1 -1/,
    );
    const json = JSON.parse((await runCli(['config', 'history', '--target', target, '--json'])).stdout);
    expect(json.map((v: { version: string; current: boolean }) => [v.version, v.current])).toEqual([
      ['v0001', false],
      ['v0002', true],
    ]);

    const nowhere = await runCli(['config', 'rollback', '--target', target, '--to', 'v0009']);
    expect(nowhere.code).toBe(2);
    expect(nowhere.stderr).toMatch(/keeps no version v0009; kept: v0001, v0002/);
    const back = await runCli(['config', 'rollback', '--target', target, '--to', 'v0001']);
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/^rolled back v0002 -> v0001; nginx not running, files only/);
    expect((await runCli(['config', 'diff', '--spec', first, '--target', target])).code).toBe(0);

    const trouble = await runCli(['config', 'diff', '--spec', join(dir, 'missing.json'), '--target', target]);
    expect(trouble.code).toBe(2);
    expect((await runCli(['config', 'history', '--target', join(dir, 'none')])).code).toBe(2);
  });
});
