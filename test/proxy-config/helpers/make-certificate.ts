import { execFile } from 'node:child_process';
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A self-signed certificate and key made by `openssl` in `dir`, valid from now for `days`. */
export async function makeCertificate(
  dir: string,
  name: string,
  days: number,
): Promise<{ certificate: string; certificateKey: string }> {
  const certificate = join(dir, `${name}.crt`);
  const certificateKey = join(dir, `${name}.key`);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    `/CN=${name}`,
    '-keyout',
    certificateKey,
    '-out',
    certificate,
    '-days',
    String(days),
  ]);
  await chmod(certificateKey, 0o644);
  return { certificate, certificateKey };
}
