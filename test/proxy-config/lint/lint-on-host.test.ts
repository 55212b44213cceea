import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
let dir: string;

beforeAll(async () => {
  hosts = await startTestHosts(['lint-edge1'], { trusted: true });
  dir = await mkdtemp(join(tmpdir(), 'proxyops-lint-host-'));
}, 60_000);

afterAll(async () => {
  await hosts?.teardown();
  await rm(dir, { recursive: true, force: true });
});

describe('config lint --host: judged against the nginx running on that host, read over ssh', () => {
  it("names the host's running master, its nginx -V version and its Debian package", async () => {
    await startHostNginx(hosts, 'lint-edge1', await freePort());
    const hostPid = Number(readFileSync(join(hosts.host('lint-edge1').dir, 'run', 'nginx.pid'), 'utf8'));
    const file = join(dir, 'app.conf');
    await writeFile(
      file,
      'events {}\nhttp {\n    upstream app { server 10.0.0.5:8080; }\n    server { listen 127.0.0.1:8080; location / { proxy_pass http://app; } }\n}\n',
    );
    const run = await execa('node', [CLI, 'config', 'lint', file, '--host', 'lint-edge1', '--json'], {
      reject: false,
      timeout: 90_000,
      env: hosts.env,
    });
    expect([0, 1], run.stderr).toContain(run.exitCode);
    const { nginx } = JSON.parse(run.stdout) as {
      nginx: { version: string; debianVersion: string; source: string; summary: string };
    };
    // The version as the host's own nginx -V and dpkg say it.
    const v = hosts.exec('lint-edge1', ['sh', '-c', 'nginx -V 2>&1']);
    const debian = hosts.exec('lint-edge1', [
      'sh',
      '-c',
      'dpkg-query -W -f=\'${Version}\' "$(dpkg-query -S "$(command -v nginx)" | cut -d: -f1)"',
    ]);
    expect(nginx.version).toBe(/nginx version: nginx\/(\d+\.\d+\.\d+)/.exec(v)?.[1]);
    expect(nginx.debianVersion).toBe(debian);
    // A running master there (test hosts share this machine's processes: the lowest pid's is named).
    const [, pid] =
      /^running master pid (\d+) \(\/usr\/sbin\/nginx\)(?: of \d+ masters)? on lint-edge1$/.exec(
        nginx.source,
      ) ?? [];
    expect(pid, nginx.source).toBeDefined();
    expect(Number(pid)).toBeLessThanOrEqual(hostPid);
    expect(nginx.summary).toBe(`nginx ${nginx.version} (Debian ${debian}), ${nginx.source}`);
  }, 120_000);
});
