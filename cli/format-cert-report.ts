import type { CertCheckReport } from '../proxy-config/certs/check-certs.js';

const LABEL = { ok: 'ok', expiring: 'EXPIRING', expired: 'EXPIRED' } as const;

/** One line per certificate: state, days left, expiry date, subject, where it came from. */
export function formatCertReport(report: CertCheckReport): string {
  const lines = report.certificates.map(
    (c) =>
      `${LABEL[c.state].padEnd(8)} ${String(c.daysLeft).padStart(5)} days  ${c.notAfter.slice(0, 10)}  ${c.subject}  ${c.source}`,
  );
  for (const u of report.unreadable) lines.push(`UNREAD         -  ${u.reason}`);
  const bad = report.certificates.filter((c) => c.state !== 'ok').length;
  lines.push(
    bad === 0
      ? `all ${report.certificates.length} certificate(s) valid for at least ${report.warnDays} more days`
      : `${bad} certificate(s) expired or expiring within ${report.warnDays} days`,
  );
  if (report.unreadable.length > 0)
    lines.push(`${report.unreadable.length} endpoint(s) could not be read: check the name and the port`);
  return `${lines.join('\n')}\n`;
}
