import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostNginx } from '../../support/host-nginx.js';
import { freePort } from '../../support/ports.js';
import { startTestHosts, type TestHosts } from '../../support/ssh-hosts.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI = join(ROOT, 'dist/cli/main.js');

let hosts: TestHosts;
let mp: string;

async function proxyops(...args: string[]) {
  const result = await execa('node', [CLI, ...args], { reject: false, timeout: 90_000, env: hosts.env });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

interface Diagnosis {
  symptom: string;
  sources: string[];
  findings: Array<{ id: string }>;
}

const access = (status: number, minute: number) =>
  `203.0.113.7 - - [22/Nov/2026:03:${String(minute).padStart(2, '0')}:00 +0000] "GET /api/orders HTTP/1.1" ${status} 157 "-" "Mozilla/5.0"`;
const refused = (minute: number) =>
  `2026/11/22 03:${String(minute).padStart(2, '0')}:00 [error] 7#7: *1 connect() failed (111: Connection refused) while connecting to upstream, client: 203.0.113.7, server: shop, request: "GET /api/orders HTTP/1.1", upstream: "http://10.0.1.11:8080/api/orders", host: "shop.example"`;

beforeAll(async () => {
  hosts = await startTestHosts(['app-edge1', 'app-edge2', 'app-edge3'], { trusted: true });
  mp = hosts.host('app-edge1').mountPoint;
  // The same paths on both hosts, other files: edge1 saw its upstream refuse, edge2 served fine.
  for (const [name, lines, errors] of [
    ['app-edge1', [access(502, 1), access(502, 2), access(200, 3)], [refused(1), refused(2)]],
    ['app-edge2', [access(200, 1), access(200, 2), access(502, 3)], []],
  ] as const) {
    const logs = join(hosts.host(name).dir, 'diag');
    await mkdir(logs, { recursive: true });
    await writeFile(join(logs, 'access.log'), lines.join('\n') + '\n');
    await writeFile(join(logs, 'error.log'), errors.map((line) => `${line}\n`).join(''));
  }
}, 60_000);

afterAll(async () => {
  await hosts?.teardown();
});

describe('diagnose SYMPTOM --host: the diagnosis runs on that host, over ssh', () => {
  const files = () => ['--access-log', `${mp}/diag/access.log`, '--error-log', `${mp}/diag/error.log`];

  it("reads that host's files (paths are the host's), and passes on its output and exit code", async () => {
    const one = await proxyops('diagnose', '502', '--host', 'app-edge1', ...files(), '--json');
    expect(one.code, one.stderr).toBe(1);
    const edge1 = JSON.parse(one.stdout) as Diagnosis;
    expect(edge1.findings[0]?.id).toBe('upstream-refused');
    expect(edge1.sources).toContain(`error log ${mp}/diag/error.log (2 recognised lines)`);
    const two = await proxyops('diagnose', '502', '--host', 'app-edge2', ...files(), '--json');
    const edge2 = JSON.parse(two.stdout) as Diagnosis;
    expect(edge2.findings.map((f) => f.id)).not.toContain('upstream-refused');
    expect(edge2.sources).toContain(`error log ${mp}/diag/error.log (0 recognised lines)`);
    // The paths exist only there: here, the mount point is an empty directory.
    const here = await proxyops('diagnose', '502', ...files());
    expect(here.code).toBe(2);
  }, 120_000);

  it('with no file flag, diagnoses the nginx running there: its processes, config and logs', async () => {
    await startHostNginx(hosts, 'app-edge1', await freePort());
    const run = await proxyops(
      'diagnose',
      '502',
      '--host',
      'app-edge1',
      '--pid-file',
      `${mp}/run/nginx.pid`,
      '--json',
    );
    const result = JSON.parse(run.stdout) as Diagnosis;
    // The same diagnosis as one run on the host by hand (its namespaces, no ssh), exit code included.
    const there = spawnSync(
      'nsenter',
      [
        '-t',
        String(hosts.host('app-edge1').sshd!.pid),
        '-m',
        '-n',
        '--',
        process.execPath,
        CLI,
        'diagnose',
        '502',
        '--pid-file',
        `${mp}/run/nginx.pid`,
        '--json',
      ],
      { encoding: 'utf8' },
    );
    expect(run.code).toBe(there.status);
    const ids = (text: string) => (JSON.parse(text) as Diagnosis).findings.map((f) => f.id).sort();
    expect(ids(run.stdout)).toEqual(ids(there.stdout));
    expect(result.sources).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^running nginx pid \\d+ \\(.*nginx -p ${mp} -c ${mp}/nginx\\.conf\\)$`),
        ),
        expect.stringMatching(new RegExp(`^access log ${mp}/logs/access\\.log \\(0 records`)),
        expect.stringMatching(/^system \(\/proc: 2 nginx processes\)$/),
      ]),
    );
  }, 120_000);

  it('an unreachable host is one line naming it; a hostile argument stays an argument there', async () => {
    await hosts.lose('app-edge3', 'sshd');
    const lost = await proxyops('diagnose', '502', '--host', 'app-edge3', ...files());
    expect(lost.code).toBe(1);
    expect(lost.stderr.trim().split('\n')).toHaveLength(1);
    expect(lost.stderr).toMatch(/^proxyops: app-edge3: lost or unreachable over ssh/);
    const hostile = `${mp}/diag/$(touch ${mp}/pwned)`;
    const run = await proxyops('diagnose', '502', '--host', 'app-edge1', '--access-log', hostile);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(hostile);
    expect(hosts.exec('app-edge1', ['ls', mp])).not.toMatch(/pwned/);
  }, 120_000);
});
