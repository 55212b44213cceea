import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readLiveMasterPid } from '../../../proxy-config/shell/nginx/nginx-master.js';
import { signalNginx, startNginx } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { waitUntilReady } from '../../../proxy-config/shell/process/wait-until-ready.js';
import { freePort } from '../../support/ports.js';
import { startLoad } from './load.js';
import { isAlive, runCli } from './stack-harness.js';

const APP = join(import.meta.dirname, 'fixtures', 'tiny-app.mjs');

describe('deploy with plain-script hooks on an address the spec does not pair: the reload path', () => {
  let root: string;
  let target: string;
  let specPath: string;
  let nginxPort: number;
  let firstPort: number;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-hook-script-'));
    await chmod(root, 0o755);
    target = join(root, 'config');
    await mkdir(join(root, 'logs'), { mode: 0o755 });
    await mkdir(join(root, 'temp'), { mode: 0o755 });
    nginxPort = await freePort();
    firstPort = await freePort();
    // The scripts a user would write: start in the background and return; stop by the pid file and wait.
    await writeFile(
      join(root, 'start.sh'),
      [
        '#!/bin/sh',
        `"${process.execPath}" "${APP}" "$2" > "${root}/app-$2.log" 2>&1 &`,
        `echo $! > "${root}/app-$2.pid"`,
        `echo "$3" > "${root}/app-$2.version"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    await writeFile(
      join(root, 'stop.sh'),
      [
        '#!/bin/sh',
        `pid=$(cat "${root}/app-$2.pid")`,
        'kill -TERM "$pid"',
        'while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done',
        `echo "$2" >> "${root}/stopped"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    specPath = join(root, 'spec.yaml');
    await writeFile(
      specPath,
      [
        'version: 1',
        `paths: { pidFile: ${root}/nginx.pid, tempDir: ${root}/temp }`,
        'workers: { processes: 1 }',
        `accessLog: { path: ${root}/logs/access.log, buffer: null, flush: null }`,
        `errorLog: { path: ${root}/logs/error.log }`,
        'upstreams:',
        '  app:',
        `    servers: [{ host: 127.0.0.1, port: ${firstPort} }]`,
        '    healthCheck: { interval: 0.1, failureThreshold: 2, margin: 0.1 }',
        '    deploy:',
        `      start: [${root}/start.sh, "{host}", "{port}", "{version}"]`,
        `      stop: [${root}/stop.sh, "{host}", "{port}"]`,
        `      ready: [${process.execPath}, -e, "fetch('http://{host}:{port}/health/ready').then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]`,
        '      watch: 0.5',
        'servers:',
        '  - names: [localhost, 127.0.0.1]',
        `    listen: [{ address: 127.0.0.1, port: ${nginxPort} }]`,
        '    routes: [{ path: /, upstream: app }]',
        '',
      ].join('\n'),
    );
    // The first instance, started by the same script its owner uses.
    const { execa } = await import('execa');
    await execa(join(root, 'start.sh'), ['127.0.0.1', String(firstPort), 'v1']);
    expect(
      (await waitUntilReady(`http://127.0.0.1:${firstPort}/health/ready`, { boundMs: 30_000, pollMs: 50 }))
        .ready,
    ).toBe(true);
    const applied = await runCli(['config', 'apply', '--spec', specPath, '--target', target]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    await startNginx({
      confPath: join(target, 'current', 'nginx.conf'),
      prefix: root,
      startupErrorLog: join(root, 'logs', 'error.log'),
    });
  }, 60_000);

  afterAll(async () => {
    const { readdir } = await import('node:fs/promises');
    for (const file of (await readdir(root)).filter((f) => f.endsWith('.pid') && f.startsWith('app-'))) {
      const pid = Number(await readFile(join(root, file), 'utf8'));
      if (await isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    if (await readLiveMasterPid(join(root, 'nginx.pid')))
      await signalNginx({ confPath: join(target, 'current', 'nginx.conf'), prefix: root }, 'stop');
    await rm(root, { recursive: true, force: true });
  });

  it('needs --version when a hook names {version} (exit 2); then starts by the script, checks readiness by the ready argv, takes the reload path (the config then names the new instance only), stops the old one by the script', async () => {
    const missing = await runCli(['deploy', 'plan', '--spec', specPath, '--target', target]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/--version/);

    const plan = await runCli(['deploy', 'plan', '--spec', specPath, '--target', target, '--version', 'v2']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`127.0.0.1:${firstPort}: reload path`);
    expect(plan.stdout).toContain('start.sh 127.0.0.1 {port} v2');
    expect(plan.stdout).toContain(`stop.sh 127.0.0.1 ${firstPort}`);

    const oldPid = Number(await readFile(join(root, `app-${firstPort}.pid`), 'utf8'));
    const load = startLoad(`http://127.0.0.1:${nginxPort}/`, {});
    const run = await runCli(['deploy', '--spec', specPath, '--target', target, '--version', 'v2', '--json']);
    const result = await load.stop();
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    expect(result).toMatchObject({ errors: 0, non2xx: 0 });
    const started = run.events.find(
      (e) => e.type === 'step-done' && (e.step as { kind: string }).kind === 'start',
    );
    const newPort = Number(
      /started 127\.0\.0\.1:(\d+) by the start hook/.exec(String(started?.outcome))?.[1],
    );
    expect(newPort).toBeGreaterThan(0);
    expect((await readFile(join(root, `app-${newPort}.version`), 'utf8')).trim()).toBe('v2');
    expect((await readFile(join(root, 'stopped'), 'utf8')).trim()).toBe(String(firstPort));
    expect(await isAlive(oldPid)).toBe(false);
    const config = await readFile(join(target, 'current', 'nginx.conf'), 'utf8');
    expect(config).toContain(`127.0.0.1:${newPort} `);
    expect(config).not.toContain(`127.0.0.1:${firstPort} `);
    expect(await readFile(join(target, 'logs', 'hooks.log'), 'utf8')).toMatch(
      /run: .*start\.sh 127\.0\.0\.1 \d+ v2/,
    );
  }, 90_000);
});
