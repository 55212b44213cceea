import {
  toCertificateStatus,
  certificatesOfSpec,
  type CertificateStatus,
} from '../core/cert/certificate-status.js';
import { isProxyopsError, ProxyopsError } from '../core/errors.js';
import { readCertificateFile, readPeerCertificate } from '../shell/read-certificate.js';
import { readSpecFile } from '../shell/read-spec-file.js';

/** What to check: files, `host:port` endpoints, and the certificates a spec names. */
export interface CertCheckInput {
  files?: string[];
  hosts?: string[];
  specPath?: string;
  /** Overrides the spec's `certificates.warnDays` and the default 30. */
  warnDays?: number;
  now?: Date;
}

/** The statuses, and the warning window that was applied. */
export interface CertCheckReport {
  warnDays: number;
  certificates: CertificateStatus[];
  /** Endpoints whose certificate could not be read (a name that does not resolve, a refused port). */
  unreadable: Array<{ source: string; reason: string }>;
}

/** Reads every named certificate and reports days to expiry against the warning window. */
export async function checkCertificates(input: CertCheckInput): Promise<CertCheckReport> {
  const spec = input.specPath ? await readSpecFile(input.specPath) : undefined;
  const warnDays = input.warnDays ?? spec?.certificates.warnDays ?? 30;
  const files = [...(input.files ?? []), ...(spec ? certificatesOfSpec(spec) : [])];
  const hosts = (input.hosts ?? []).map(parseHostPort);
  if (files.length + hosts.length === 0)
    throw new ProxyopsError(
      'USAGE',
      'nothing to check: give certificate files, --host HOST:PORT or --spec FILE',
    );
  const now = input.now ?? new Date();
  const certificates: CertificateStatus[] = [];
  for (const file of files)
    certificates.push(
      toCertificateStatus({ source: file, ...(await readCertificateFile(file)) }, now, warnDays),
    );
  // One endpoint that fails (DNS, a refused port) must not hide the expiry of the others.
  const unreadable: CertCheckReport['unreadable'] = [];
  for (const { host, port, source } of hosts) {
    try {
      certificates.push(
        toCertificateStatus({ source, ...(await readPeerCertificate(host, port)) }, now, warnDays),
      );
    } catch (error) {
      if (!isProxyopsError(error) || error.code !== 'CERT_UNREADABLE') throw error;
      unreadable.push({ source, reason: error.message });
    }
  }
  return { warnDays, certificates, unreadable };
}

function parseHostPort(value: string): { host: string; port: number; source: string } {
  const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (!match?.[1] || !(port >= 1 && port <= 65535))
    throw new ProxyopsError('BAD_OPTION', `--host wants HOST:PORT, got "${value}"`);
  return { host: match[1], port, source: value };
}
