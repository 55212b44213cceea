/** How a certificate stands against the warning window. */
export type CertificateState = 'ok' | 'expiring' | 'expired';

/** One checked certificate, whatever it came from (file, host, spec). */
export interface CertificateStatus {
  source: string;
  subject: string;
  notAfter: string;
  /** Whole days left, rounded down; negative once expired. */
  daysLeft: number;
  state: CertificateState;
}

const DAY_MS = 86_400_000;

/** Days left and state of a certificate valid until `notAfter`, seen at `now` with a `warnDays` window. */
export function toCertificateStatus(
  input: { source: string; subject: string; notAfter: Date },
  now: Date,
  warnDays: number,
): CertificateStatus {
  const msLeft = input.notAfter.getTime() - now.getTime();
  const daysLeft = Math.floor(msLeft / DAY_MS);
  const state: CertificateState = msLeft <= 0 ? 'expired' : daysLeft < warnDays ? 'expiring' : 'ok';
  return {
    source: input.source,
    subject: input.subject,
    notAfter: input.notAfter.toISOString(),
    daysLeft,
    state,
  };
}

/** Certificate files a spec names, each once, in spec order. */
export function certificatesOfSpec(spec: { servers: Array<{ tls?: { certificate: string } }> }): string[] {
  return [...new Set(spec.servers.flatMap((s) => (s.tls ? [s.tls.certificate] : [])))];
}
