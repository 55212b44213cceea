import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileLogFormat } from '../../../proxy-config/core/logs/compile-log-format.js';
import { decodeLogValue } from '../../../proxy-config/core/logs/decode-log-value.js';
import {
  COMBINED_LOG_FORMAT,
  LOG_FORMAT_PRESETS,
} from '../../../proxy-config/core/logs/log-format-presets.js';
import { parseLogFormat } from '../../../proxy-config/core/logs/parse-log-format.js';
import { parseLogLine } from '../../../proxy-config/core/logs/parse-log-line.js';
import { parseUpstreamList } from '../../../proxy-config/core/logs/upstream-list.js';
import {
  PROXYOPS_LOG_FORMAT_JSON,
  PROXYOPS_LOG_FORMAT_TEXT,
} from '../../../proxy-config/core/render/log-formats.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/logs/${name}`, import.meta.url), 'utf8')
    .trimEnd()
    .split('\n');

describe('log_format compiler', () => {
  it('splits literals and variables, $name and ${name}', () => {
    expect(parseLogFormat('a=$a ${b}c [$time_local]')).toEqual({
      escape: 'default',
      literals: ['a=', ' ', 'c [', ']'],
      variables: ['a', 'b', 'time_local'],
    });
  });

  it('refuses a format whose variables touch, naming them', () => {
    expect(() => compileLogFormat('$remote_addr$status')).toThrow(/\$remote_addr and \$status have no text/);
    expect(() => compileLogFormat('no variables')).toThrow(
      expect.objectContaining({ code: 'LOG_FORMAT_INVALID' }),
    );
  });

  it('reads any variables and literal text, not only known ones', () => {
    const f = compileLogFormat('<<$host|$status|$sent_http_x_cache>>');
    const r = parseLogLine(f, '<<api.example.com|503|MISS>>')!;
    expect(r.fields).toEqual({ host: 'api.example.com', status: '503', sent_http_x_cache: 'MISS' });
    expect(r.status).toBe(503);
    expect(parseLogLine(f, '<<api.example.com|503|MISS>> trailing')).toBeNull();
  });
});

describe('preset: combined', () => {
  const f = compileLogFormat(COMBINED_LOG_FORMAT);
  const lines = fixture('combined.log');

  it('parses every field of a combined line, with the time zone applied', () => {
    const r = parseLogLine(f, lines[0]!)!;
    expect(r.remoteAddr).toBe('203.0.113.7');
    expect(r.fields.remote_user).toBe('alice');
    expect(new Date(r.time!).toISOString()).toBe('2026-11-21T09:00:01.000Z');
    expect([r.method, r.path, r.protocol]).toEqual(['GET', '/users/42', 'HTTP/1.1']);
    expect([r.status, r.bodyBytesSent]).toEqual([200, 512]);
    expect(r.fields.http_referer).toBe('https://example.com/');
    expect(r.fields.http_user_agent).toBe('curl/8.5.0');
    expect(r.upstream).toEqual([]);
    expect(r.proxyGenerated).toBeNull();
  });

  it('decodes escape=default \\xHH, takes "-" and raw-space requests, keeps status 009', () => {
    expect(parseLogLine(f, lines[1]!)!.fields.http_user_agent).toBe('Mozilla/5.0 "quoted"');
    const dash = parseLogLine(f, lines[2]!)!;
    expect([dash.status, dash.method, dash.path]).toEqual([400, null, null]);
    expect(parseLogLine(f, lines[3]!)!.path).toBe('/with raw space');
    expect(parseLogLine(f, lines[4]!)!.fields.request).toBe('\u0016\u0003\u0001\u0002\u0000\u0001');
    const odd = parseLogLine(f, lines[5]!)!;
    expect([odd.status, odd.statusText]).toEqual([9, '009']);
  });

  it('a truncated line does not match', () => {
    expect(parseLogLine(f, lines[6]!)).toBeNull();
    expect(parseLogLine(f, lines[0]!.slice(0, 40))).toBeNull();
    expect(parseLogLine(f, '')).toBeNull();
  });
});

describe('preset: proxyops text and JSON, escape=json', () => {
  it('the text preset reads lists: retries, and " : " across internal redirects', () => {
    const f = compileLogFormat(
      LOG_FORMAT_PRESETS.proxyops!.kind === 'format' ? PROXYOPS_LOG_FORMAT_TEXT : '',
    );
    const line =
      '10.0.0.9 - - [21/Nov/2026:10:00:01 +0000] "GET /x HTTP/1.1" 200 5 "-" "ua" rt=0.105 ' +
      'uct="-, 0.001 : 0.002" uht="-, 0.050 : 0.100" urt="0.000, 0.051 : 0.102" ' +
      'ua="10.0.0.1:80, 10.0.0.2:80 : unix:/run/app.sock" us="502, 404 : 200" rid="abc" ui="-"';
    const r = parseLogLine(f, line)!;
    expect(r.upstream).toEqual([
      { address: '10.0.0.1:80', status: 502, connectTime: null, headerTime: null, responseTime: 0 },
      { address: '10.0.0.2:80', status: 404, connectTime: 0.001, headerTime: 0.05, responseTime: 0.051 },
      {
        address: 'unix:/run/app.sock',
        status: 200,
        connectTime: 0.002,
        headerTime: 0.1,
        responseTime: 0.102,
      },
    ]);
    expect(r.requestTime).toBe(0.105);
    expect(r.requestId).toBe('abc');
    expect(r.proxyGenerated).toBe(false);
  });

  it('the JSON preset decodes \\" \\\\ \\n \\u00XX and keeps quotes inside values from ending them', () => {
    const f = compileLogFormat(PROXYOPS_LOG_FORMAT_JSON, 'json');
    const line =
      '{"remote_addr":"::1","remote_user":"","time_local":"21/Nov/2026:10:00:01 +0000",' +
      '"request":"GET /q?a=\\"b\\" HTTP/1.1","status":"504","body_bytes_sent":"0",' +
      '"http_referer":"","http_user_agent":"x \\"y\\" \\\\ z\\n\\u0001 \u00fc",' +
      '"request_time":"1.001","upstream_connect_time":"0.000","upstream_header_time":"-",' +
      '"upstream_response_time":"1.001","upstream_addr":"[::1]:8080","upstream_status":"504","request_id":"r1","upstream_instance":""}';
    const r = parseLogLine(f, line)!;
    expect(r.fields.request).toBe('GET /q?a="b" HTTP/1.1');
    expect(r.fields.http_user_agent).toBe('x "y" \\ z\n\u0001 \u00fc');
    expect(r.upstream).toEqual([
      { address: '[::1]:8080', status: 504, connectTime: 0, headerTime: null, responseTime: 1.001 },
    ]);
    expect(r.proxyGenerated).toBe(true);
  });

  it('decodes each escape mode', () => {
    expect(decodeLogValue('a\\x22b\\x5C\\xC3\\xBC', 'default')).toBe('a"b\\\u00fc');
    expect(decodeLogValue('a\\"b\\\\c\\/\\t', 'json')).toBe('a"b\\c/\t');
    expect(decodeLogValue('a\\x22', 'none')).toBe('a\\x22');
  });

  it('splits upstream lists on ", " and " : "', () => {
    expect(parseUpstreamList('502, 200 : 404')).toEqual(['502', '200', '404']);
    expect(parseUpstreamList('127.0.0.1:80')).toEqual(['127.0.0.1:80']);
    expect(parseUpstreamList('')).toEqual([]);
  });
});
