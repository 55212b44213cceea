import { describe, expect, it } from 'vitest';
import {
  canonicalHost,
  isRefusable,
  judgeRefusal,
  workersUid,
} from '../../../../proxy-config/core/deploy/refusal.js';

describe('refusing nginx connections to an old instance: the pure part', () => {
  it('takes IP literals only: no host name, no zone, a port in range', () => {
    expect(isRefusable({ host: '10.0.0.7', port: 3001 })).toBe(true);
    expect(isRefusable({ host: 'fe80::1', port: 3001 })).toBe(true);
    expect(isRefusable({ host: 'app1.internal', port: 3001 })).toBe(false);
    expect(isRefusable({ host: 'fe80::1%eth0', port: 3001 })).toBe(false);
    expect(isRefusable({ host: '10.0.0.7', port: 70000 })).toBe(false);
    expect(isRefusable({ host: '10.0.0.7; flush ruleset', port: 1 })).toBe(false);
  });

  it('spells one address one way, an IPv4-mapped address as its IPv4', () => {
    expect(canonicalHost('FE80:0::1')).toBe('fe80::1');
    expect(canonicalHost('0:0:0:0:0:0:0:1')).toBe('::1');
    expect(canonicalHost('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(canonicalHost('10.0.0.7')).toBe('10.0.0.7');
  });

  it('refuses only when every address can be named and every nginx host can', () => {
    const addresses = [
      { host: '10.0.0.7', port: 3001 },
      { host: '10.0.0.7', port: 3002 },
    ];
    expect(judgeRefusal(addresses, [{ host: 'web1' }, { host: 'web2' }])).toEqual({ ok: true });
    expect(
      judgeRefusal(addresses, [{ host: 'web1' }, { host: 'web2', unrefusable: 'nft is not installed' }]),
    ).toEqual({ ok: false, reason: 'web2: nft is not installed' });
    expect(judgeRefusal([{ host: 'app1', port: 3001 }], [{ host: 'web1' }])).toEqual({
      ok: false,
      reason: 'app1:3001 is not an IP address and port',
    });
  });

  it("reads the workers' uid only once every child has taken its worker title", () => {
    const master = { cmdline: 'nginx: master process /usr/sbin/nginx -c /etc/nginx/nginx.conf', uid: 0 };
    const worker = { cmdline: 'nginx: worker process', uid: 33 };
    // Forked a moment ago: still the master's title and uid (nginx sets the title after setuid).
    const forked = { ...master };
    expect(workersUid(master, [worker, { ...worker }])).toEqual({ uid: 33 });
    expect(workersUid(master, [worker, forked])).toEqual({ unknown: 'starting' });
    expect(workersUid(master, [forked])).toEqual({ unknown: 'starting' });
    expect(workersUid(master, [])).toEqual({ unknown: 'none' });
    expect(workersUid(master, [worker, { cmdline: 'nginx: cache manager process', uid: 65534 }])).toEqual({
      unknown: 'mixed',
    });
  });
});
