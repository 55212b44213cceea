import { X509Certificate } from 'node:crypto';
import { connect, type PeerCertificate } from 'node:tls';
import { ProxyopsError } from '../core/errors.js';
import { readInputFile } from './logs/read-input-file.js';

/** What the checks need of a certificate. */
export interface CertificateFacts {
  subject: string;
  notAfter: Date;
}

/** The first certificate of a PEM file (the leaf of a chain). */
export async function readCertificateFile(path: string): Promise<CertificateFacts> {
  const pem = await readInputFile(
    path,
    (reason, cause) =>
      new ProxyopsError('CERT_FILE_UNREADABLE', `cannot read certificate ${path}: ${reason}`, { cause }),
  );
  try {
    const cert = new X509Certificate(pem);
    return { subject: oneLine(cert.subject), notAfter: new Date(cert.validTo) };
  } catch (error) {
    throw new ProxyopsError(
      'CERT_FILE_UNREADABLE',
      `${path} holds no PEM certificate: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
}

/** The certificate a TLS server presents (SNI = host), without trusting it: expired ones must be reported too. */
export function readPeerCertificate(
  host: string,
  port: number,
  timeoutMs = 10_000,
): Promise<CertificateFacts> {
  return new Promise((resolve, reject) => {
    const servername = /^[\d.]+$|:/.test(host) ? undefined : host;
    const socket = connect({ host, port, rejectUnauthorized: false, ...(servername ? { servername } : {}) });
    const fail = (error: Error) => {
      socket.destroy();
      reject(
        new ProxyopsError(
          'CERT_UNREADABLE',
          `cannot read the certificate of ${host}:${port}: ${error.message}`,
          {
            cause: error,
          },
        ),
      );
    };
    socket.setTimeout(timeoutMs, () => fail(new Error(`no TLS handshake within ${timeoutMs / 1000} s`)));
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      const cert: PeerCertificate = socket.getPeerCertificate();
      socket.end();
      if (!cert || !cert.valid_to) return fail(new Error('the server sent no certificate'));
      resolve({ subject: `CN=${cert.subject?.CN ?? '?'}`, notAfter: new Date(cert.valid_to) });
    });
  });
}

function oneLine(subject: string): string {
  return subject.split('\n').join(', ');
}
