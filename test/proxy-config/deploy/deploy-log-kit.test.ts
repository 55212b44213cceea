import { describe, expect, it } from 'vitest';
import { deployLogKit } from '../../../proxy-config/core/deploy/deploy-log-kit.js';
import { summarizeLogWindow } from '../../../proxy-config/core/deploy/log-window.js';
import { createLogReaderKit, presetFormat } from '../../../proxy-config/core/logs/log-format-presets.js';

const before = (status: number) =>
  `127.0.0.1 - - [22/Nov/2026:03:00:00 +0000] "GET /users HTTP/1.1" ${status} 12 "-" "load" rt=0.002 uct="0.000" uht="0.001" urt="0.002" ua="127.0.0.1:9001" us="${status}" rid="abc"`;
const now = (status: number) => `${before(status)} ui="127.0.0.1:9002"`;

const json = (status: number, instance?: string) =>
  JSON.stringify({
    remote_addr: '127.0.0.1',
    remote_user: '-',
    time_local: '22/Nov/2026:03:00:00 +0000',
    request: 'GET /users HTTP/1.1',
    status: String(status),
    body_bytes_sent: '12',
    http_referer: '-',
    http_user_agent: 'load',
    request_time: '0.002',
    upstream_connect_time: '0.000',
    upstream_header_time: '0.001',
    upstream_response_time: '0.002',
    upstream_addr: '127.0.0.1:9001',
    upstream_status: String(status),
    request_id: 'abc',
    ...(instance === undefined ? {} : { upstream_instance: instance }),
  });

describe('deployLogKit', () => {
  it('reads the lines an nginx configured by an older proxyops writes (no ui=), beside the current ones', () => {
    const text = `${[before(404), before(200), now(200), now(500)].join('\n')}\n`;
    // The current format alone skips the older lines: the baseline of the first deploy after an upgrade was empty.
    expect(summarizeLogWindow(createLogReaderKit(presetFormat('proxyops')), text).distribution.total).toBe(2);
    const window = summarizeLogWindow(deployLogKit('text'), text);
    expect(window.skipped).toBe(0);
    expect(window.distribution.byStatus).toEqual({ '200': 2, '404': 1, '500': 1 });
    expect(window.named).toBe(2);
  });

  it('does the same for the JSON format', () => {
    const text = `${[json(404), json(200, 'slot-0.new')].join('\n')}\n`;
    const window = summarizeLogWindow(deployLogKit('json'), text);
    expect(window.skipped).toBe(0);
    expect(window.distribution.total).toBe(2);
    expect(window.named).toBe(1);
  });
});
