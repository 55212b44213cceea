import { describe, expect, it } from 'vitest';
import {
  countTimeWaitByEndpoint,
  parseProcNetTcp,
  portOf,
  toEndpoint,
} from '../../../proxy-config/core/diagnose/parse-proc-net-tcp.js';

const TCP = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:238D 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0
   1: 0100007F:238D 0100007F:C350 06 00000000:00000000 03:00000F9F 00000000     0        0 0 3 0000000000000000
   2: 0100007F:C351 0100007F:238D 06 00000000:00000000 03:00000F9F 00000000     0        0 0 3 0000000000000000
   3: 0100007F:C352 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 20 4 30 10 -1
`;
const TCP6 = `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000001000000:238D 00000000000000000000000001000000:C353 06 00000000:00000000 03:00000F9F 00000000     0        0 0 3 0000000000000000
   1: 0000000000000000FFFF00000100007F:238D 0000000000000000FFFF00000100007F:C354 06 00000000:00000000 03:00000F9F 00000000     0        0 0 3 0000000000000000
`;

describe('parseProcNetTcp', () => {
  it('decodes little-endian IPv4 and IPv6 addresses, ports and states', () => {
    const sockets = parseProcNetTcp(TCP);
    expect(sockets).toHaveLength(4);
    expect(sockets[0]).toEqual({
      local: '127.0.0.1:9101',
      remote: '0.0.0.0:0',
      state: 'LISTEN',
      inode: '1001',
    });
    expect(sockets[1]).toEqual({
      local: '127.0.0.1:9101',
      remote: '127.0.0.1:50000',
      state: 'TIME_WAIT',
      inode: '0',
    });
    expect(portOf(sockets[3]!.remote)).toBe(8080);
    expect(portOf('[::1]:9101')).toBe(9101);
    expect(parseProcNetTcp(TCP6).map((s) => s.local)).toEqual(['[::1]:9101', '127.0.0.1:9101']);
    expect(toEndpoint('B80D0120000000000000000001000000:0050')).toBe('[2001:db8::1]:80');
  });

  it('counts TIME_WAIT sockets per endpoint, both ends', () => {
    const counts = countTimeWaitByEndpoint([...parseProcNetTcp(TCP), ...parseProcNetTcp(TCP6)]);
    expect(counts['127.0.0.1:9101']).toBe(3);
    expect(counts['[::1]:9101']).toBe(1);
    expect(counts['127.0.0.1:8080']).toBeUndefined();
  });
});
