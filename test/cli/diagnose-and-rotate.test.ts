import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveNginx, type LiveNginx } from '../support/live-nginx.js';
import { freePort } from '../support/ports.js';
import { runCli } from '../support/run-cli.js';

describe('proxyops diagnose and logs rotate (CLI)', () => {
  let nginx: LiveNginx;
  let port: number;
  let closed: number;
  beforeAll(async () => {
    port = await freePort();
    closed = await freePort();
    nginx = await startLiveNginx(`
      server {
        listen 127.0.0.1:${port};
        location /down { proxy_pass http://127.0.0.1:${closed}; }
        location / { return 200 "ok\\n"; }
      }`);
  });
  afterAll(() => nginx.stop());

  const sources = () => [
    '--access-log',
    nginx.accessLog,
    '--error-log',
    nginx.errorLog,
    '--config',
    nginx.target.confPath,
  ];

  it('exits 0 and says so when nothing is found', async () => {
    await fetch(`http://127.0.0.1:${port}/`);
    const result = await runCli(['diagnose', '504', ...sources()]);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(
      /^diagnose 504: looked at config .*, access log .*, error log .*\nno finding\.\n$/,
    );
  });

  it('exits 1 with ranked findings, human and --json', async () => {
    expect((await fetch(`http://127.0.0.1:${port}/down`)).status).toBe(502);
    // nginx writes the line just after answering; poll's default 1 s is short on a loaded machine.
    await expect.poll(() => nginx.readAccessLog(), { timeout: 10_000 }).toContain('GET /down');
    const human = await runCli(['diagnose', '502', ...sources()]);
    expect(human.code).toBe(1);
    expect(human.stdout).toContain(
      '1. [critical] upstream-refused: nothing accepts connections on the upstream address',
    );
    expect(human.stdout).toMatch(/evidence:\n\s+error log: 1 × connect\(\) to the upstream failed/);
    expect(human.stdout).toContain('runbook: runbooks/502.md#connection-refused');

    const json = await runCli(['diagnose', '502', ...sources(), '--json']);
    expect(json.code).toBe(1);
    const parsed = JSON.parse(json.stdout) as { symptom: string; findings: Array<Record<string, unknown>> };
    expect(parsed.symptom).toBe('502');
    expect(parsed.findings[0]).toMatchObject({
      rank: 1,
      id: 'upstream-refused',
      severity: 'critical',
      runbook: 'runbooks/502.md#connection-refused',
    });
    expect(Object.keys(parsed.findings[0] ?? {})).toEqual([
      'rank',
      'id',
      'severity',
      'title',
      'evidence',
      'nextSteps',
      'runbook',
    ]);
  });

  it('exits 2 with one line on stderr for bad input', async () => {
    for (const args of [
      ['diagnose', '418'],
      ['diagnose', '502', '--since', 'yesterday'],
      ['diagnose', '502', '--url', 'notaurl'],
      ['diagnose', '413', '--url', 'ftp://127.0.0.1/upload'],
      // Port 0 would quietly probe port 80; an empty --since is not "no bound"; a pid file naming no
      // nginx is no evidence (without one, the machine's running nginx would be).
      ['diagnose', '413', '--url', 'http://127.0.0.1:0/'],
      ['diagnose', '502', '--since', ''],
      ['diagnose', '504', '--pid-file', '/nonexistent/nginx.pid'],
      ['diagnose', '502', '--since', '2026-11-22T03:00:00Z', '--until', '2026-11-22T02:00:00Z'],
      ['diagnose', '502', '--access-log', '/nonexistent/access.log'],
      ['diagnose', '502', '--config', nginx.target.confPath, '--spec', 'x.yaml'],
      ['logs', 'rotate', '--log', nginx.accessLog, '--pid-file', '/nonexistent/nginx.pid'],
    ]) {
      const result = await runCli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^proxyops: [^\n]+\n$/);
      expect(result.stdout).toBe('');
    }
  });

  it('rotates, and exits 1 with one line when the pid is dead', async () => {
    const pidFile = join(nginx.prefix, 'nginx.pid');
    const ok = await runCli([
      'logs',
      'rotate',
      '--log',
      nginx.accessLog,
      '--pid-file',
      pidFile,
      '--compress',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /^rotated .*access\.log → .*access\.log\.\d{8}-\d{6}\.gz; nginx \d+ reopened in \d+ ms/,
    );

    const dead = join(nginx.prefix, 'dead.pid');
    const exited = (await execa('sh', ['-c', 'echo $$'])).stdout.trim();
    await writeFile(dead, `${exited}\n`);
    const result = await runCli(['logs', 'rotate', '--log', nginx.accessLog, '--pid-file', dead]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`proxyops: nginx is not running: pid ${exited} from ${dead} does not exist\n`);
  });

  it('refuses to signal a pid file that names a live process other than nginx; nothing moves', async () => {
    // A pid reused after nginx died: USR1 would kill this process (its default action). libuv returns
    // the pid only once exec has happened, so /proc already shows `sleep 30`.
    const log = join(nginx.prefix, 'other.log');
    await writeFile(log, 'line\n');
    const other = execa('sleep', ['30'], { reject: false });
    const pidFile = join(nginx.prefix, 'other.pid');
    await writeFile(pidFile, `${other.pid}\n`);
    try {
      const result = await runCli(['logs', 'rotate', '--log', log, '--pid-file', pidFile]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          `^proxyops: .*other\\.pid names pid ${other.pid}, which is not an nginx master \\(sleep 30\\); refusing to signal it\n$`,
        ),
      );
      expect(other.exitCode).toBeNull();
      expect((await readdir(nginx.prefix)).filter((f) => f.startsWith('other.log'))).toEqual(['other.log']);
    } finally {
      other.kill('SIGKILL');
    }
  });
});
