import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { findNginxBinary } from '../../../proxy-config/shell/nginx/nginx-binary.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { runCli } from '../../support/run-cli.js';
import { makeCertificate } from '../helpers/make-certificate.js';

interface LintJson {
  nginx: { version?: string; source: string; debianVersion?: string; judgedAs: string; summary: string };
  findings: Array<{ ruleId: string; severity: string; line: number; what: string }>;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'proxyops-lint-version-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function lint(name: string, text: string, ...args: string[]) {
  const file = join(dir, name);
  await writeFile(file, text);
  const run = await runCli(['config', 'lint', file, '--json', ...args]);
  if (run.code === 2) throw new Error(run.stderr);
  return { code: run.code, report: JSON.parse(run.stdout) as LintJson };
}
const ids = (report: LintJson, id: string) => report.findings.filter((f) => f.ruleId === id);

const KEEPALIVE = `events {}
http {
    upstream app {
        server 10.0.0.5:8080;
    }
    server {
        listen 127.0.0.1:8080;
        location / { proxy_pass http://app; }
    }
}
`;

describe('config lint --nginx-version: judged against that release', () => {
  it('1.29.7 (upstream keep-alive by default) silences upstream-keepalive-missing, which 1.29.6 reports', async () => {
    const before = await lint('keepalive.conf', KEEPALIVE, '--nginx-version', '1.29.6');
    expect(ids(before.report, 'upstream-keepalive-missing').map((f) => f.line)).toEqual([3]);
    const after = await lint('keepalive.conf', KEEPALIVE, '--nginx-version', '1.29.7');
    expect(ids(after.report, 'upstream-keepalive-missing')).toEqual([]);
    expect(after.report.nginx).toMatchObject({ version: '1.29.7', source: 'given with --nginx-version' });
  });

  it('1.29.7 speaks HTTP/1.1 without Connection to a pool: upstream-keepalive-headers only before it', async () => {
    const text = KEEPALIVE.replace('server 10.0.0.5:8080;', 'server 10.0.0.5:8080;\n        keepalive 32;');
    const before = await lint('headers.conf', text, '--nginx-version', '1.29.6');
    expect(ids(before.report, 'upstream-keepalive-headers')).toHaveLength(1);
    const after = await lint('headers.conf', text, '--nginx-version', '1.29.7');
    expect(ids(after.report, 'upstream-keepalive-headers')).toEqual([]);
  });

  const ssl = (listens: string) =>
    `events {}\nhttp {\n    server {\n${listens}\n        ssl on;\n        ssl_certificate a.pem;\n        ssl_certificate_key a.key;\n        return 204;\n    }\n}\n`;

  it('1.24.0 reports ssl on beside listen 80 as an error (that port speaks TLS); alone, a warning until 1.25.1 refuses it', async () => {
    const broken = await lint(
      'ssl-80.conf',
      ssl('        listen 80;\n        listen 443;'),
      '--nginx-version',
      '1.24.0',
    );
    expect(ids(broken.report, 'ssl-directive-obsolete')).toMatchObject([
      { severity: 'error', line: 6, what: expect.stringContaining('listen 80') },
    ]);
    expect(broken.code).toBe(1);
    const alone = await lint('ssl-443.conf', ssl('        listen 443;'), '--nginx-version', '1.24.0');
    expect(ids(alone.report, 'ssl-directive-obsolete')).toMatchObject([{ severity: 'warning' }]);
    const removed = await lint('ssl-443.conf', ssl('        listen 443;'), '--nginx-version', '1.25.1');
    expect(ids(removed.report, 'ssl-directive-obsolete')).toMatchObject([
      {
        severity: 'error',
        what: expect.stringContaining('the deprecated "ssl" directive is not supported anymore'),
      },
    ]);
  });

  it('takes resolver in upstream from 1.27.3 (directive-not-allowed before), and refuses 1.27.4 directives before', async () => {
    const text = `events {}\nhttp {\n    upstream app {\n        resolver 127.0.0.53;\n        server app.internal:8080 resolve;\n        keepalive 32;\n    }\n    server {\n        listen 127.0.0.1:8080;\n        keepalive_min_timeout 5s;\n        location / { proxy_pass http://app; }\n    }\n}\n`;
    const old = await lint('resolve.conf', text, '--nginx-version', '1.27.2');
    expect(ids(old.report, 'directive-not-allowed').map((f) => f.line)).toEqual([4]);
    expect(ids(old.report, 'directive-not-in-version').map((f) => f.line)).toEqual([5, 10]);
    const later = await lint('resolve.conf', text, '--nginx-version', '1.27.4');
    expect(ids(later.report, 'directive-not-allowed')).toEqual([]);
    expect(ids(later.report, 'directive-not-in-version')).toEqual([]);
  });

  it('refuses what is no nginx version, and --nginx-version with --host', async () => {
    const file = join(dir, 'keepalive.conf');
    const bad = await runCli(['config', 'lint', file, '--nginx-version', '1.29']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--nginx-version "1.29" is not an nginx version');
    // Leading zeros: no release is written so, and 1.022.1 would be read as 1.22.1 unsaid.
    const zeros = await runCli(['config', 'lint', file, '--nginx-version', '1.022.1']);
    expect([zeros.code, zeros.stderr.trim().split('\n').length]).toEqual([2, 1]);
    expect(zeros.stderr).toContain('--nginx-version "1.022.1" is not an nginx version');
    const both = await runCli(['config', 'lint', file, '--nginx-version', '1.29.7', '--host', 'web1']);
    expect(both.code).toBe(2);
  });

  it('names the nginx judged against in text and SARIF too', async () => {
    const file = join(dir, 'keepalive.conf');
    const text = await runCli(['config', 'lint', file, '--nginx-version', '1.29.7']);
    expect(text.stdout).toContain('judged against: nginx 1.29.7, given with --nginx-version');
    const sarif = JSON.parse(
      (await runCli(['config', 'lint', file, '--format', 'sarif', '--nginx-version', '1.29.7'])).stdout,
    ) as {
      runs: Array<{ properties: { nginx: { version: string } } }>;
    };
    expect(sarif.runs[0]?.properties.nginx.version).toBe('1.29.7');
  });
});

describe('config lint without --nginx-version', () => {
  it("judges against this machine's nginx: its nginx -V version and Debian package", async () => {
    const { report } = await lint('keepalive.conf', KEEPALIVE);
    const binary = findNginxBinary();
    const v = spawnSync(binary, ['-V'], { encoding: 'utf8' }).stderr;
    expect(v).toContain(`nginx/${report.nginx.version}`);
    const owner = spawnSync('dpkg-query', ['-S', binary], { encoding: 'utf8' }).stdout.split(':')[0] ?? '';
    const debian = spawnSync('dpkg-query', ['-W', '-f=${Version}', owner], { encoding: 'utf8' }).stdout;
    expect(report.nginx.debianVersion).toBe(debian);
    expect(report.nginx.source).toMatch(
      /^(running master pid \d+ \(\/\S+\)|nginx installed at \/\S+).* on this machine/,
    );
    expect(report.nginx.summary).toBe(
      `nginx ${report.nginx.version} (Debian ${debian}), ${report.nginx.source}`,
    );
  });

  it('with no nginx known, says so and judges by the stated default', () => {
    const config = parseNginxConfig(KEEPALIVE.replace('http {', 'http {\n    resolver 10.0.0.2;'), 'x.conf');
    const report = lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: config });
    expect(report.nginx?.summary).toBe(
      "nginx unknown (none given): directives judged as nginx 1.22.1's, advisories not judged",
    );
    expect(report.findings.filter((f) => f.ruleId === 'nginx-advisory')).toEqual([]);
    expect(report.nginx?.unknownAdvisories).toEqual([
      'CVE-2021-23017 (the resolver directive): unknown, the nginx version is unknown',
    ]);
  });
});

// Why `ssl on` beside a plain listen is an error on every version that takes it: on nginx 1.22
// the plain port speaks TLS too, and a plain HTTP request to it gets 400.
describe('ssl on beside a plain listen, on the real nginx 1.22', () => {
  let nginx: LiveNginx | undefined;
  afterAll(() => nginx?.stop());

  it('answers plain HTTP on the plain listen with 400 (TLS expected)', async () => {
    const cert = await makeCertificate(dir, 'ssl-on.test', 2);
    const [plain, tls] = [await freePort(), await freePort()];
    nginx = await startLiveNginx(`
  server {
    listen 127.0.0.1:${plain};
    listen 127.0.0.1:${tls};
    ssl on;
    ssl_certificate ${cert.certificate};
    ssl_certificate_key ${cert.certificateKey};
    return 204;
  }`);
    const response = await fetch(`http://127.0.0.1:${plain}/`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('The plain HTTP request was sent to HTTPS port');
  });
});
