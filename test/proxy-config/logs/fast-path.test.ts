import { describe, expect, it } from 'vitest';
import { compileLogFormat } from '../../../proxy-config/core/logs/compile-log-format.js';
import { createFactsReader, createLineFacts, linePath } from '../../../proxy-config/core/logs/line-facts.js';
import { format, JSON_FORMAT, JSON_LINES, mutations, snapshot, TEXT, TEXT_LINES } from './log-line-corpus.js';

/** Reads each line with the regex fast path and with the matcher alone; returns both and the fast hits. */
function readBoth(spec: typeof TEXT, lines: string[]) {
  const compiled = compileLogFormat(format(spec), spec.kind === 'format' ? spec.escape : 'json');
  const fast = createFactsReader(compiled);
  const slow = createFactsReader(compiled, false);
  const pattern = compiled.createPattern(['status']).regex;
  const a = createLineFacts();
  const b = createLineFacts();
  const fastOut = [];
  const slowOut = [];
  let regexHits = 0;
  for (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    // The whole text holds a line before and after, as a chunk does; the line's end excludes "\r".
    const s = `x\n${raw}\ny`;
    fast.reset();
    slow.reset();
    fastOut.push(snapshot(fast.read(s, 2, 2 + line.length, a), a, compiled.escape));
    slowOut.push(snapshot(slow.read(s, 2, 2 + line.length, b), b, compiled.escape));
    pattern.lastIndex = 2;
    if (pattern.exec(s) && pattern.lastIndex === 2 + line.length) regexHits++;
  }
  return { fastOut, slowOut, regexHits };
}

describe('the regex fast path', () => {
  it('reads the common lines of the rendered format itself', () => {
    const normal = TEXT_LINES.slice(0, 12);
    const { fastOut, slowOut, regexHits } = readBoth(TEXT, normal);
    expect(regexHits).toBe(normal.length);
    expect(fastOut).toEqual(slowOut);
    expect(fastOut[2]).toMatchObject({ addr: ['10.0.1.11:8080', '10.0.1.12:8080'], headerMs: [-1, 4] });
    expect(fastOut[3]).toMatchObject({ upstreamStatus: [504, 200], responseMs: [1002, 3] });
    expect(fastOut[5]).toMatchObject({ status: 9 });
    expect(fastOut[8]).toMatchObject({ path: '/café' });
    expect(fastOut[10]!.timeMs - fastOut[0]!.timeMs).toBe(58_000 - 2 * 3600_000);
  });

  it('gives what the matcher gives on every line, odd, truncated or mutated (text format)', () => {
    const lines = mutations(TEXT_LINES);
    const { fastOut, slowOut, regexHits } = readBoth(TEXT, lines);
    expect(regexHits).toBeGreaterThan(lines.length / 4);
    for (let i = 0; i < lines.length; i++) expect([lines[i], fastOut[i]]).toEqual([lines[i], slowOut[i]]);
  });

  it('leaves escaped quotes of escape=json to the matcher and still agrees', () => {
    const lines = mutations(JSON_LINES);
    const { fastOut, slowOut } = readBoth(JSON_FORMAT, lines);
    for (let i = 0; i < lines.length; i++) expect([lines[i], fastOut[i]]).toEqual([lines[i], slowOut[i]]);
    const plain = readBoth(JSON_FORMAT, JSON_LINES);
    expect(plain.regexHits).toBe(1);
    expect(plain.fastOut[1]).toMatchObject({ status: 502 });
  });

  it('handles other time variables and formats without upstream fields', () => {
    const iso = compileLogFormat('$time_iso8601 $status "$request_uri" $msec');
    const reader = createFactsReader(iso);
    const f = createLineFacts();
    const s = '2026-11-21T10:00:01+02:00 503 "/a?b" 1.5\n2026-11-21T10:00:07+02:00 200 "/c" 2\n';
    const nl = s.indexOf('\n');
    expect(reader.read(s, 0, nl, f)).toBe(true);
    expect([f.timeMs, f.status, linePath(f, 'default'), f.attempts]).toEqual([
      Date.UTC(2026, 10, 21, 8, 0, 1),
      503,
      '/a',
      0,
    ]);
    expect(reader.read(s, nl + 1, s.length - 1, f)).toBe(true);
    expect(f.timeMs).toBe(Date.UTC(2026, 10, 21, 8, 0, 7));
  });
});
