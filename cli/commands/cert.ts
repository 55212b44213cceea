import { InvalidArgumentError, type Command } from 'commander';
import { runAction } from '../run-action.js';
import type { Extent } from './index.js';

/** `proxyops cert check FILE... | --host HOST:PORT | --spec FILE`: days to expiry; exit 1 within the warning window. */
export function registerCert(program: Command, extent: Extent = 'whole'): Command {
  const cert = program.command('cert').description('Certificate checks');
  if (extent === 'head') return cert;
  cert
    .command('check')
    .description('Days to expiry of certificate files, TLS endpoints or the certificates a spec names')
    .argument('[files...]', 'PEM certificate files')
    .option('--host <host:port...>', 'read the certificate a TLS server presents')
    .option('--spec <file>', 'check the certificates named in this proxy spec')
    .option('--warn-days <days>', 'warn this many days before expiry (default: the spec, else 30)', parseDays)
    .option('--json', 'print the report as JSON')
    .action((files: string[], flags: { host?: string[]; spec?: string; warnDays?: number; json?: boolean }) =>
      runAction(async () => {
        const { checkCertificates } = await import('../../proxy-config/certs/check-certs.js');
        const { formatCertReport } = await import('../format-cert-report.js');
        const report = await checkCertificates({
          files,
          ...(flags.host ? { hosts: flags.host } : {}),
          ...(flags.spec ? { specPath: flags.spec } : {}),
          ...(flags.warnDays === undefined ? {} : { warnDays: flags.warnDays }),
        });
        process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatCertReport(report));
        return report.certificates.some((c) => c.state !== 'ok') || report.unreadable.length > 0 ? 1 : 0;
      }),
    );
  return cert;
}

function parseDays(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number of days >= 0');
  return n;
}
