import { describe, expect, it } from 'vitest';
import {
  certificatesOfSpec,
  toCertificateStatus,
} from '../../../../proxy-config/core/cert/certificate-status.js';

const now = new Date('2026-11-22T00:00:00Z');
const at = (iso: string) =>
  toCertificateStatus({ source: 'x.crt', subject: 'CN=x', notAfter: new Date(iso) }, now, 30);

describe('toCertificateStatus', () => {
  it('is ok at or beyond the warning window', () => {
    expect(at('2026-12-22T00:00:00Z')).toMatchObject({ daysLeft: 30, state: 'ok' });
  });
  it('is expiring inside the window', () => {
    expect(at('2026-12-21T23:00:00Z')).toMatchObject({ daysLeft: 29, state: 'expiring' });
    expect(at('2026-11-22T01:00:00Z')).toMatchObject({ daysLeft: 0, state: 'expiring' });
  });
  it('is expired once notAfter has passed, with negative days', () => {
    expect(at('2026-11-20T00:00:00Z')).toMatchObject({ daysLeft: -2, state: 'expired' });
  });
});

describe('certificatesOfSpec', () => {
  it('lists each certificate a spec names once', () => {
    const tls = { certificate: '/a.crt' };
    expect(
      certificatesOfSpec({ servers: [{ tls }, {}, { tls }, { tls: { certificate: '/b.crt' } }] }),
    ).toEqual(['/a.crt', '/b.crt']);
  });
});
