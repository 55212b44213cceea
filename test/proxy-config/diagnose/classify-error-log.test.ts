import { describe, expect, it } from 'vitest';
import {
  classifyErrorLine,
  classifyErrorLog,
} from '../../../proxy-config/core/diagnose/classify-error-log.js';

// Lines as nginx 1.22 writes them (the cases of docs/access-logs.md, "The proxy-generated rule").
const LINES = {
  refused:
    '2026/11/22 02:31:05 [error] 4242#4242: *1 connect() failed (111: Connection refused) while connecting to upstream, client: 127.0.0.1, server: , request: "GET / HTTP/1.1", upstream: "http://127.0.0.1:9109/", host: "127.0.0.1:8080"',
  premature:
    '2026/11/22 02:31:06 [error] 4242#4242: *3 upstream prematurely closed connection while reading response header from upstream, client: 127.0.0.1, server: , request: "GET /close HTTP/1.1", upstream: "http://127.0.0.1:9101/close", host: "x"',
  timeout:
    '2026/11/22 02:31:07 [error] 4242#4242: *5 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 127.0.0.1, server: , request: "GET /slow?ms=2000 HTTP/1.1", upstream: "http://127.0.0.1:9101/slow?ms=2000", host: "x"',
  body: '2026/11/22 02:31:08 [error] 4242#4242: *7 client intended to send too large body: 12813 bytes, client: 127.0.0.1, server: , request: "POST /upload HTTP/1.1", host: "x"',
  files: '2026/11/22 02:31:09 [crit] 4242#4242: accept4() failed (24: Too many open files)',
  noLive:
    '2026/11/22 02:31:10 [error] 4242#4242: *9 no live upstreams while connecting to upstream, client: 127.0.0.1, server: , request: "GET / HTTP/1.1", upstream: "http://app/", host: "x"',
  bigHeader:
    '2026/11/22 02:31:11 [error] 4242#4242: *11 upstream sent too big header while reading response header from upstream, client: 127.0.0.1, request: "GET / HTTP/1.1", upstream: "http://127.0.0.1:9101/"',
  invalid:
    '2026/11/22 02:31:12 [error] 4242#4242: *13 upstream sent no valid HTTP/1.0 header while reading response header from upstream, client: 127.0.0.1, request: "GET /garbage HTTP/1.1", upstream: "http://127.0.0.1:9101/garbage"',
  notice: '2026/11/22 02:31:13 [notice] 4242#4242: signal process started',
};

describe('classifyErrorLine', () => {
  it('classifies each nginx message to its kind and pulls out its fields', () => {
    expect(classifyErrorLine(LINES.refused)).toMatchObject({
      kind: 'upstream-refused',
      level: 'error',
      upstream: 'http://127.0.0.1:9109/',
      request: 'GET / HTTP/1.1',
    });
    expect(classifyErrorLine(LINES.premature)?.kind).toBe('upstream-reset');
    expect(classifyErrorLine(LINES.timeout)?.kind).toBe('upstream-read-timeout');
    expect(classifyErrorLine(LINES.body)).toMatchObject({ kind: 'body-too-large', bodyBytes: 12813 });
    expect(classifyErrorLine(LINES.files)).toMatchObject({ kind: 'too-many-open-files', level: 'crit' });
    expect(classifyErrorLine(LINES.noLive)?.kind).toBe('no-live-upstreams');
    expect(classifyErrorLine(LINES.bigHeader)?.kind).toBe('upstream-header-too-big');
    expect(classifyErrorLine(LINES.invalid)?.kind).toBe('upstream-invalid-header');
  });

  it('reads the local time nginx wrote', () => {
    const time = classifyErrorLine(LINES.refused)?.time;
    expect(time?.getFullYear()).toBe(2026);
    expect(time?.getHours()).toBe(2);
    expect(time?.getSeconds()).toBe(5);
  });

  it('leaves lines it does not know out of a whole log', () => {
    const kinds = classifyErrorLog(Object.values(LINES).join('\n')).map((line) => line.kind);
    expect(kinds).toHaveLength(8);
    expect(kinds).not.toContain(undefined);
    expect(classifyErrorLine(LINES.notice)).toBeNull();
  });
});
