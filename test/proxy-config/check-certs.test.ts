import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCertificates } from '../../proxy-config/certs/check-certs.js';
import { freePort } from '../support/ports.js';
import { makeCertificate } from './helpers/make-certificate.js';
import { runCli } from '../support/run-cli.js';

describe('cert check', () => {
  let dir: string;
  let longLived: { certificate: string; certificateKey: string };
  let shortLived: { certificate: string; certificateKey: string };
  let server: Server;
  let port: number;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-cert-'));
    await chmod(dir, 0o755);
    longLived = await makeCertificate(dir, 'long.test', 90);
    shortLived = await makeCertificate(dir, 'short.test', 10);
    port = await freePort();
    server = createServer({
      cert: await readFile(shortLived.certificate),
      key: await readFile(shortLived.certificateKey),
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('reports days to expiry of files (node:crypto)', async () => {
    const report = await checkCertificates({ files: [longLived.certificate, shortLived.certificate] });
    expect(report.warnDays).toBe(30);
    expect(report.certificates.map((c) => [c.subject, c.daysLeft, c.state])).toEqual([
      ['CN=long.test', 89, 'ok'],
      ['CN=short.test', 9, 'expiring'],
    ]);
  });

  it('reads the certificate a TLS endpoint presents (node:tls), even an untrusted one', async () => {
    const report = await checkCertificates({ hosts: [`127.0.0.1:${port}`] });
    expect(report.certificates[0]).toMatchObject({
      subject: 'CN=short.test',
      daysLeft: 9,
      state: 'expiring',
    });
  });

  it('goes on past an endpoint whose name does not resolve, and reports it', async () => {
    // .invalid never resolves (RFC 6761).
    const hosts = ['no-such-host.proxyops.invalid:443', `127.0.0.1:${port}`];
    const report = await checkCertificates({ hosts });
    expect(report.certificates.map((c) => c.subject)).toEqual(['CN=short.test']);
    expect(report.unreadable).toEqual([
      { source: hosts[0], reason: expect.stringContaining('no-such-host.proxyops.invalid:443') },
    ]);
    const cli = await runCli(['cert', 'check', '--host', ...hosts]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(/^EXPIRING\s+9 days .* CN=short\.test/m);
    expect(cli.stdout).toMatch(/^UNREAD .*no-such-host\.proxyops\.invalid:443/m);
    expect(cli.stdout).toContain('1 endpoint(s) could not be read');
  });

  it('reports an expired certificate as expired', async () => {
    const later = new Date(Date.now() + 20 * 86_400_000);
    const report = await checkCertificates({ files: [shortLived.certificate], now: later });
    expect(report.certificates[0]).toMatchObject({ state: 'expired' });
    expect(report.certificates[0]!.daysLeft).toBeLessThan(0);
  });

  it('checks the certificates a spec names, with the spec warning window', async () => {
    const spec = join(dir, 'spec.json');
    await writeFile(
      spec,
      JSON.stringify({
        version: 1,
        certificates: { warnDays: 5 },
        upstreams: { app: { servers: [{ host: '127.0.0.1', port: 3000 }] } },
        servers: [
          {
            names: ['short.test'],
            listen: [{ port: 443, tls: true }],
            tls: shortLived,
            routes: [{ path: '/', upstream: 'app' }],
          },
        ],
      }),
    );
    const report = await checkCertificates({ specPath: spec });
    expect(report.warnDays).toBe(5);
    expect(report.certificates).toMatchObject([{ source: shortLived.certificate, state: 'ok' }]);
    expect((await runCli(['cert', 'check', '--spec', spec])).code).toBe(0);
    expect((await runCli(['cert', 'check', '--spec', spec, '--warn-days', '30'])).code).toBe(1);
  });

  it('exits 1 within --warn-days, 0 outside, 2 on bad input', async () => {
    const ok = await runCli(['cert', 'check', longLived.certificate]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok\s+89 days .* CN=long\.test /m);
    const warn = await runCli(['cert', 'check', longLived.certificate, '--host', `127.0.0.1:${port}`]);
    expect(warn.code).toBe(1);
    expect(warn.stdout).toMatch(/^EXPIRING\s+9 days .* CN=short\.test {2}127\.0\.0\.1:\d+$/m);
    expect((await runCli(['cert', 'check', longLived.certificate, '--warn-days', '100'])).code).toBe(1);
    expect((await runCli(['cert', 'check', '--host', 'nohostport'])).code).toBe(2);
    expect((await runCli(['cert', 'check'])).code).toBe(2);
    const missing = await runCli(['cert', 'check', '/nonexistent/cert.pem']);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(/^proxyops: cannot read certificate \/nonexistent\/cert\.pem: [^\n]+\n$/);
  });
});
