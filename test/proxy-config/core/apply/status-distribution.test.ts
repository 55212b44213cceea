import { describe, expect, it } from 'vitest';
import {
  countStatusCodes,
  formatStatusDistribution,
} from '../../../../proxy-config/core/apply/status-distribution.js';

const text = (status: string, request = 'GET / HTTP/1.1') =>
  `127.0.0.1 - - [22/Nov/2026:02:00:00 +0000] "${request}" ${status} 3 "-" "curl/8" rt=0.001 uct="0.000" uht="0.001" urt="0.001" ua="127.0.0.1:3000" us="${status}" rid="abc" ui="-"`;

describe('countStatusCodes', () => {
  it('counts text and JSON lines of the proxyops formats and the 5xx share', () => {
    const lines = [
      text('200'),
      text('200', 'GET /a\\"b 200 HTTP/1.1'),
      text('502'),
      '{"remote_addr":"127.0.0.1","status":"499","request":"GET / HTTP/1.1"}',
      'garbage line',
      '',
    ];
    const d = countStatusCodes(lines);
    expect(d).toEqual({ total: 4, byStatus: { '200': 2, '499': 1, '502': 1 }, share5xx: 0.25 });
    expect(formatStatusDistribution(d)).toBe('200×2 499×1 502×1 (5xx 25.0% of 4)');
  });

  it('takes odd three-digit statuses as data', () => {
    expect(countStatusCodes([text('009')]).byStatus).toEqual({ '009': 1 });
  });

  it('is empty without requests', () => {
    expect(countStatusCodes([])).toEqual({ total: 0, byStatus: {}, share5xx: 0 });
    expect(formatStatusDistribution(countStatusCodes([]))).toBe('no requests');
  });
});
