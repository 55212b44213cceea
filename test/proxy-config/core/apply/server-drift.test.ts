import { describe, expect, it } from 'vitest';
import {
  describeDrift,
  findGoneServers,
  findServerDrift,
} from '../../../../proxy-config/core/apply/server-drift.js';

const at = (port: number, host = '127.0.0.1') => ({ host, port });

describe('findServerDrift', () => {
  it('is empty when every recorded pool matches the spec, in any order', () => {
    expect(findServerDrift({ api: [at(1), at(2)] }, { api: [at(2), at(1)] })).toEqual([]);
  });

  it('ignores pools with no record (never deployed) and records of pools the spec lacks', () => {
    expect(findServerDrift({ api: [at(1)], web: [at(5)] }, { web: [], old: [at(9)] })).toEqual([]);
  });

  it('an IPv6 host is the same address with or without its brackets', () => {
    expect(findServerDrift({ web: [at(5, '[::1]')] }, { web: [at(5, '::1')] })).toEqual([]);
    expect(findServerDrift({ web: [at(5, '[::1]')] }, { web: [at(6, '::1')] })[0]?.spec).toEqual(['[::1]:5']);
  });

  it('names each pool whose servers differ, sorted, IPv6 in brackets', () => {
    const drift = findServerDrift(
      { api: [at(2), at(1)], web: [at(5, '::1')] },
      { api: [at(4), at(3)], web: [at(5, '::1')] },
    );
    expect(drift).toEqual([
      { upstream: 'api', spec: ['127.0.0.1:1', '127.0.0.1:2'], recorded: ['127.0.0.1:3', '127.0.0.1:4'] },
    ]);
    expect(findServerDrift({ web: [at(5, '::1')] }, { web: [at(6, '::1')] })[0]?.recorded).toEqual([
      '[::1]:6',
    ]);
    expect(describeDrift(drift)).toBe(
      'upstream api: the spec lists 127.0.0.1:1, 127.0.0.1:2; serving now: 127.0.0.1:3, 127.0.0.1:4',
    );
  });
});

describe('findGoneServers', () => {
  it('names the servers a version routes to that the record does not list as serving', () => {
    expect(findGoneServers({ api: ['127.0.0.1:2', '127.0.0.1:1'] }, { api: [at(1), at(3)] })).toEqual([
      { upstream: 'api', gone: ['127.0.0.1:2'], serving: ['127.0.0.1:1', '127.0.0.1:3'] },
    ]);
  });

  it('is empty when the version routes to some of the serving instances, or the pool has no record', () => {
    expect(findGoneServers({ api: ['127.0.0.1:1'] }, { api: [at(1), at(2)] })).toEqual([]);
    expect(findGoneServers({ web: ['127.0.0.1:9'] }, { api: [at(1)], web: [] })).toEqual([]);
  });

  it('compares IPv6 addresses in the one bracketed spelling the manifest stores', () => {
    expect(findGoneServers({ web: ['[::1]:5'] }, { web: [at(5, '::1')] })).toEqual([]);
  });
});
