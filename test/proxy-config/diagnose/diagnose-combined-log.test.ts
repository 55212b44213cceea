import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';

describe('diagnose 502 on a stock combined log', () => {
  let dir: string;
  let accessLog: string;
  let errorLog: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-combined-'));
    accessLog = join(dir, 'access.log');
    errorLog = join(dir, 'error.log');
    const line = (status: number, agent: string) =>
      `127.0.0.1 - - [22/Nov/2026:02:59:00 +0000] "GET /api HTTP/1.1" ${status} 157 "-" "${agent}"`;
    await writeFile(
      accessLog,
      [
        line(502, 'curl/8'),
        line(502, 'curl/8'),
        line(200, 'curl/8'),
        line(502, 'proxyops-probe/0.1.0'),
        '',
      ].join('\n'),
    );
    await writeFile(
      errorLog,
      '2026/11/22 02:59:00 [error] 7#7: *1 connect() failed (111: Connection refused) while connecting to upstream, client: 127.0.0.1, server: , request: "GET /api HTTP/1.1", upstream: "http://127.0.0.1:9109/api", host: "x"\n',
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('ranks causes from the error log and says which figures the format could not give', async () => {
    const result = await diagnose({ symptom: '502', accessLog, errorLog, pidFile: undefined });
    expect(result.findings[0]?.id).toBe('upstream-refused');
    expect(result.sources).toContain(
      `access log ${accessLog} (3 records; format combined; 1 proxyops probe lines left out; ` +
        'proxy-generated vs upstream-returned split unknown (no $upstream_header_time); ' +
        'upstream statuses and per-upstream figures unknown (no $upstream_addr, $upstream_status); ' +
        'request-time percentiles unknown (no $request_time))',
    );
    expect(result.sources).toContain('missing: no nginx config (give --config or --spec)');
  });

  it('a log no known format reads is an error naming the closest format, not an empty diagnosis', async () => {
    const junk = join(dir, 'junk.log');
    await writeFile(junk, 'hello\nworld\n');
    await expect(diagnose({ symptom: '502', accessLog: junk })).rejects.toThrow(
      /match no known log format; give --config with the log_format/,
    );
  });

  it('without an error log, says how many 502s the access log shows and that their cause is unknown', async () => {
    const result = await diagnose({ symptom: '502', accessLog });
    expect(result.sources).toContain(
      'missing: no error log: 2 502s in the access log, cause unknown without it (give --error-log, or run where nginx runs)',
    );
  });
});
