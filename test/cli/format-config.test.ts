import { describe, expect, it } from 'vitest';
import {
  formatApplyReport,
  formatProxiesApplyReport,
  formatRollbackReport,
} from '../../cli/format-config.js';
import { countStatusCodes } from '../../proxy-config/core/apply/status-distribution.js';

const line = (status: string) =>
  `1.2.3.4 - - [22/Nov/2026:02:00:00 +0000] "GET / HTTP/1.1" ${status} 3 "-" "-" rt=0`;

describe('config apply/rollback output', () => {
  it('prints the status distribution before and after the watch', () => {
    const out = formatApplyReport({
      version: 'v0003',
      previous: 'v0002',
      configPath: '/etc/proxyops/current/nginx.conf',
      watch: {
        before: countStatusCodes([line('200'), line('200')]),
        after: countStatusCodes([line('200'), line('502'), line('502'), line('404')]),
        exceeded: true,
        seconds: 10.2,
      },
      rolledBack: { to: 'v0002' },
    });
    expect(out).toBe(
      [
        'applied v0003: /etc/proxyops/current/nginx.conf',
        'status codes before: 200×2 (5xx 0.0% of 2)',
        'status codes after (10 s): 200×1 404×1 502×2 (5xx 50.0% of 4)',
        'rolled back to v0002: the 5xx share rose above the limit',
        '',
      ].join('\n'),
    );
  });

  it('says what a rollback did', () => {
    expect(formatRollbackReport({ from: 'v0003', to: 'v0002' })).toBe(
      'rolled back v0003 -> v0002; nginx not running, files only\n',
    );
  });

  it('says a change to hand-written trees across hosts as one host does: adopted, undid, rolled back what', () => {
    const hosts = [
      { host: 'web1', target: '/var/lib/proxyops', version: 'v0003' },
      { host: 'web2', target: '/var/lib/proxyops', version: 'v0002', unchanged: true as const },
    ];
    expect(formatProxiesApplyReport({ version: 'v0001', kind: 'adopt', hosts: hosts.slice(0, 1) })).toBe(
      'adopted: v0001 on 1 host: web1\n',
    );
    expect(formatProxiesApplyReport({ version: 'v0003', kind: 'undo-adopt', hosts })).toBe(
      'undid the adoption: v0003 on 1 host: web1; unchanged: web2 v0002\n',
    );
    expect(formatProxiesApplyReport({ version: 'v0003', kind: 'rollback', undid: 'v0002', hosts })).toBe(
      'rolled back v0002: v0003 on 1 host: web1; unchanged: web2 v0002\n',
    );
    expect(formatProxiesApplyReport({ version: 'v0003', kind: 'tree', hosts: hosts.slice(0, 1) })).toBe(
      'applied v0003 to 1 host: web1\n',
    );
  });
});
