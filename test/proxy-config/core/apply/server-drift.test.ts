import { describe, expect, it } from 'vitest';
import {
  describeDrift,
  describeGone,
  findGoneServers,
  findServerDrift,
  recordAfterSwitch,
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
  const serving = (port: number, host = '127.0.0.1') => ({ host, port, inUpstream: true });
  const out = (port: number, pid?: number) => ({
    host: '127.0.0.1',
    port,
    inUpstream: false,
    ...(pid === undefined ? {} : { pid }),
  });
  const none = new Set<number>();

  it('names what a version routes to that is neither serving nor a recorded instance still running', () => {
    expect(findGoneServers({ api: [at(2), at(1)] }, { api: [serving(1), serving(3)] }, none)).toEqual([
      { upstream: 'api', gone: ['127.0.0.1:2'], serving: ['127.0.0.1:1', '127.0.0.1:3'] },
    ]);
  });

  it('an instance taken out of the upstream still answers while its pid runs', () => {
    const pools = { api: [serving(4), out(1, 77)] };
    expect(findGoneServers({ api: [at(1)] }, pools, new Set([77]))).toEqual([]);
    expect(findGoneServers({ api: [at(1)] }, pools, none)[0]?.gone).toEqual(['127.0.0.1:1']);
  });

  it('a recorded pool with nothing serving is still a record: its servers are checked', () => {
    expect(findGoneServers({ api: [at(1)] }, { api: [out(4)] }, none)).toEqual([
      { upstream: 'api', gone: ['127.0.0.1:1'], serving: [] },
    ]);
  });

  it('is empty when the version routes to some of the serving instances, or the pool has no record', () => {
    expect(findGoneServers({ api: [at(1)] }, { api: [serving(1), serving(2)] }, none)).toEqual([]);
    expect(findGoneServers({ web: [at(9)] }, { api: [serving(1)], web: [] }, none)).toEqual([]);
  });

  it('an IPv6 host is the same address with or without its brackets', () => {
    expect(findGoneServers({ web: [at(5, '[::1]')] }, { web: [serving(5, '::1')] }, none)).toEqual([]);
  });

  it('describeGone says where each upstream would route and what serves', () => {
    const gone = findGoneServers({ api: [at(1)], web: [at(2)] }, { api: [serving(4)], web: [out(3)] }, none);
    expect(describeGone(gone)).toBe(
      'upstream api to 127.0.0.1:1 (serving: 127.0.0.1:4); upstream web to 127.0.0.1:2 (serving: none)',
    );
  });
});

describe('recordAfterSwitch', () => {
  it('marks each recorded instance in its upstream exactly when the version lists it, adding unknown ones', () => {
    const record = {
      api: [
        { host: '127.0.0.1', port: 1, inUpstream: true, pid: 10 },
        { host: '127.0.0.1', port: 2, inUpstream: false, pid: 20 },
      ],
      web: [{ host: '127.0.0.1', port: 9, inUpstream: true }],
    };
    expect(recordAfterSwitch(record, { api: [at(2), at(3)] })).toEqual({
      api: [
        { host: '127.0.0.1', port: 1, inUpstream: false, pid: 10 },
        { host: '127.0.0.1', port: 2, inUpstream: true, pid: 20 },
        { host: '127.0.0.1', port: 3, inUpstream: true },
      ],
      web: [{ host: '127.0.0.1', port: 9, inUpstream: true }],
    });
  });
});

describe('blue/green pairs (alternate)', () => {
  const paired = (port: number, alternate: number) => ({ ...at(port), alternate: at(alternate) });
  const serving = (port: number) => ({ ...at(port), inUpstream: true });

  it('an instance on the alternate of a listed server is no drift, no gone server, and stays in its upstream', () => {
    const spec = { api: [paired(1, 2), paired(3, 4)] };
    expect(findServerDrift(spec, { api: [at(2), at(3)] })).toEqual([]);
    expect(findGoneServers(spec, { api: [serving(2), serving(3)] }, new Set())).toEqual([]);
    expect(recordAfterSwitch({ api: [serving(2), serving(3)] }, spec)).toEqual({
      api: [serving(2), serving(3)],
    });
  });

  it('an address outside every pair is still drift', () => {
    expect(findServerDrift({ api: [paired(1, 2)] }, { api: [at(5)] })[0]?.recorded).toEqual(['127.0.0.1:5']);
  });
});
