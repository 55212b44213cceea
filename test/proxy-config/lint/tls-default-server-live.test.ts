import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/ports.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { makeCertificate } from '../helpers/make-certificate.js';

/** The protocol a TLS 1.2-only handshake for `servername` gets, or the error that ended it. */
function handshakeTls12(port: number, servername: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({
      host: '127.0.0.1',
      port,
      servername,
      minVersion: 'TLSv1.2',
      maxVersion: 'TLSv1.2',
      rejectUnauthorized: false,
    });
    socket.setTimeout(5_000, () => socket.destroy(new Error('timeout')));
    socket.once('secureConnect', () => {
      resolve(socket.getProtocol() ?? 'none');
      socket.end();
    });
    socket.once('error', (error) => resolve(`failed: ${error.message}`));
  });
}

// Why tls-protocols-weak looks at a socket's default server (and why the catch-all template sets
// ssl_protocols): nginx negotiates the protocol with the default server's settings, before SNI
// selects the named server, whose own ssl_protocols then change nothing.
describe('ssl_protocols on a shared TLS socket, with the real nginx', () => {
  let certDir: string;
  let nginx: LiveNginx | undefined;
  let port: number;
  let cert: { certificate: string; certificateKey: string };

  beforeAll(async () => {
    certDir = await mkdtemp(join(tmpdir(), 'proxyops-tls-default-'));
    cert = await makeCertificate(certDir, 'named.test', 2);
    port = await freePort();
  });
  afterAll(async () => {
    await nginx?.stop();
    await rm(certDir, { recursive: true, force: true });
  });

  const body = (defaultProtocols: string) => `
  server {
    listen 127.0.0.1:${port} ssl default_server;
    server_name _;
    ssl_reject_handshake on;
    ${defaultProtocols}
    return 421;
  }
  server {
    listen 127.0.0.1:${port} ssl;
    server_name named.test;
    ssl_certificate ${cert.certificate};
    ssl_certificate_key ${cert.certificateKey};
    ssl_protocols TLSv1.3;
    return 204;
  }`;

  it("follows the default server's protocols, not the named server's", async () => {
    nginx = await startLiveNginx(body(''));
    // The named server allows TLS 1.3 only, yet a TLS 1.2 handshake for it succeeds.
    expect(await handshakeTls12(port, 'named.test')).toBe('TLSv1.2');

    await nginx.reload(body('ssl_protocols TLSv1.3;'));
    expect(await handshakeTls12(port, 'named.test')).toMatch(/^failed: /);
  });
});
