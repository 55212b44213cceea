import { describe, expect, it } from 'vitest';
import { summarizeLogWindow } from '../../../proxy-config/core/deploy/log-window.js';
import { createLogReaderKit, presetFormat } from '../../../proxy-config/core/logs/log-format-presets.js';

const kit = createLogReaderKit(presetFormat('proxyops'));
const line = (status: number, ua: string, rt: string) =>
  `127.0.0.1 - - [22/Nov/2026:03:00:00 +0000] "GET /users HTTP/1.1" ${status} 12 "-" "load" rt=${rt} uct="0.000" uht="0.001" urt="${rt}" ua="${ua}" us="${status}" rid="abc"`;

describe('summarizeLogWindow', () => {
  it('counts statuses and requests per upstream address with the log parser', () => {
    const text = [
      line(200, '127.0.0.1:9001', '0.002'),
      line(500, '127.0.0.1:9002', '0.002'),
      line(200, '127.0.0.1:9002', '0.002'),
      'not a log line',
      '',
    ].join('\n');
    const window = summarizeLogWindow(kit, text);
    expect(window.distribution).toEqual({ total: 3, byStatus: { '200': 2, '500': 1 }, share5xx: 1 / 3 });
    expect(window.byAddress['127.0.0.1:9002']).toEqual({ total: 2, fivexx: 1, badGateway: 0, fresh: 0 });
    expect(window.skipped).toBe(1);
  });

  it('marks requests shorter than the time since the reload as fresh, for every address tried', () => {
    const text = [
      line(200, '127.0.0.1:9001', '0.900'), // in flight since before the reload: allowed
      line(200, '127.0.0.1:9001, 127.0.0.1:9002', '0.010'), // began after it: a new request to 9001
    ].join('\n');
    const window = summarizeLogWindow(kit, `${text}\n`, 300);
    expect(window.byAddress['127.0.0.1:9001']).toMatchObject({ total: 2, fresh: 1 });
    expect(window.byAddress['127.0.0.1:9002']).toMatchObject({ total: 1, fresh: 1 });
  });
});
