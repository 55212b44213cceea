import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileLogFormat } from '../../../proxy-config/core/logs/compile-log-format.js';
import { createFactsReader, type LineFacts } from '../../../proxy-config/core/logs/line-facts.js';
import {
  createLogReaderKit,
  LOG_FORMAT_PRESETS,
  type LogFormatSpec,
} from '../../../proxy-config/core/logs/log-format-presets.js';
import { createLogScan, scanLogText } from '../../../proxy-config/core/logs/scan-log-text.js';
import { createStatsState } from '../../../proxy-config/core/logs/stats-state.js';
import { createWasmLineScanner } from '../../../proxy-config/core/logs/wasm-line-scanner.js';
import { loadLogLineScanner } from '../../../proxy-config/shell/logs/load-log-line-scanner.js';
import { countFileRange } from '../../../proxy-config/shell/logs/read-log-input.js';
import {
  JSON_FORMAT,
  JSON_LINES,
  mutations,
  snapshot,
  TEXT,
  TEXT_LINES,
  textLine,
} from './log-line-corpus.js';

// Built by `npm run build` (the test scripts build first).
const module = loadLogLineScanner();
/** Temporary directories the tests made, each of which must be gone by the end. */
const madeDirs: string[] = [];

/** Reads `text` (whole lines) through the scanner, or the JavaScript matcher alone; returns what each line gave. */
function readAll(spec: LogFormatSpec, text: string, wasm: boolean) {
  const kit = createLogReaderKit(spec);
  // Lines the scanner refuses go to the matcher alone, so the scanner is compared with the matcher.
  const slowKit = { ...kit, createReader: () => createFactsReader(kit.format!, false) };
  const seen: unknown[] = [];
  const state = createStatsState(kit.capabilities);
  const scan = createLogScan(slowKit, state, 'test', (f: LineFacts) => {
    seen.push([scan.lineNumber, snapshot(true, f, kit.escape)]);
    return false;
  });
  let refused = 0;
  const read = scan.read;
  scan.read = (s, start, end, f) => (refused++, read(s, start, end, f));
  if (wasm) {
    const scanner = createWasmLineScanner(module!, kit.format!)!;
    scanner.reserve(text.length);
    scanner.input().set(Buffer.from(text, 'latin1'));
    scanner.count(scan, text.length);
  } else scanLogText(scan, text);
  return { seen, lines: state.lines, malformed: state.malformed, samples: state.malformedSamples, refused };
}

function expectSame(spec: LogFormatSpec, lines: string[]) {
  const text = `${lines.join('\n')}\n`;
  const wasm = readAll(spec, text, true);
  const js = readAll(spec, text, false);
  expect({ ...wasm, refused: 0 }).toEqual({ ...js, refused: 0 });
  return wasm;
}

/** Counts `text` (whole lines) with the scanner counting what it can, and with JavaScript alone. */
function countBothWays(spec: LogFormatSpec, text: string) {
  const kit = createLogReaderKit(spec);
  // Lines the scanner leaves to JavaScript go to the matcher alone, as every line of the other count.
  const slowKit = { ...kit, createReader: () => createFactsReader(kit.format!, false) };
  const wasm = createStatsState(kit.capabilities);
  const js = createStatsState(kit.capabilities);
  const scanner = createWasmLineScanner(module!, kit.format!)!;
  scanner.reserve(text.length);
  scanner.input().set(Buffer.from(text, 'latin1'));
  scanner.count(createLogScan(slowKit, wasm, 'test'), text.length);
  scanLogText(createLogScan(slowKit, js, 'test'), text);
  return { wasm, js };
}

describe('the WebAssembly line scanner', () => {
  it('is built', () => {
    expect(module).not.toBeNull();
  });

  it('reads the common lines of the rendered format itself', () => {
    const normal = TEXT_LINES.slice(0, 12);
    const { refused, seen } = expectSame(TEXT, normal);
    expect(refused).toBe(0);
    expect(seen[2]).toMatchObject([3, { addr: ['10.0.1.11:8080', '10.0.1.12:8080'], headerMs: [-1, 4] }]);
  });

  it('gives what the matcher gives on every line, odd, truncated or mutated (text format)', () => {
    const lines = mutations(TEXT_LINES);
    const { refused } = expectSame(TEXT, lines);
    expect(refused).toBeLessThan(lines.length * 0.75);
  });

  it('leaves escaped quotes of escape=json to the matcher and still agrees', () => {
    const { refused } = expectSame(JSON_FORMAT, JSON_LINES);
    expect(refused).toBe(2);
    expectSame(JSON_FORMAT, mutations(JSON_LINES));
  });

  it('agrees on other formats, and declines the ones it does not read', () => {
    const spec = (format: string): LogFormatSpec => ({
      kind: 'format',
      name: 'x',
      format,
      escape: 'default',
    });
    const iso = spec('$time_iso8601 $status "$request_uri" "$uri" $request_time $upstream_status');
    expectSame(
      iso,
      mutations([
        '2026-11-21T10:00:01+02:00 503 "/a?b" "/a" 1.5 502, 504',
        '2026-01-31T23:59:60-05:30 200 "/" "/" - -',
      ]),
    );
    expectSame(spec('$status $request_time'), ['200 0.1234', '200 1234567.1', '200 12.', '201 .5']);
    expectSame(spec('$status $upstream_addr'), ['200 a, b, c, d, e', '200 a : b', '200 a ,b']);
    expect(createWasmLineScanner(module!, compileLogFormat('$msec $status'))).toBeNull();
    expect(createWasmLineScanner(module!, compileLogFormat('$status → $request'))).toBeNull();
  });

  it('counts the lines it can by itself, without a filter, into the statistics JavaScript makes', () => {
    const minute = (i: number) =>
      `21/Nov/2026:${String(10 + (Math.floor(i / 60) % 14)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:07 +0000`;
    // Many minutes and addresses, so that the scanner's timeline slots and address pool run out too.
    const varied = Array.from({ length: 3000 }, (_, i) =>
      textLine({
        time: minute(i % 997),
        status: ['200', '499', '502', '504', '301', '009'][i % 6]!,
        ua: i % 5 === 0 ? `10.0.${i % 90}.1:80, 10.0.1.12:8080` : `10.0.${i % 70}.1:80`,
        us: i % 5 === 0 ? '502, 200' : i % 7 === 0 ? '-' : '200',
        uht: i % 3 === 0 ? '-' : '0.004',
        rt: `${i % 40}.${String(i % 1000).padStart(3, '0')}`,
      }),
    );
    const lines = [...mutations(TEXT_LINES), ...varied];
    const text = `${lines.join('\n')}\n`;
    const { wasm, js } = countBothWays(TEXT, text);
    expect(wasm).toEqual(js);
    expect(wasm.upstreams.size).toBeGreaterThan(64);
  });

  it("counts a format of upstream times without address or status (the nginx blog's) as JavaScript does", () => {
    const spec = LOG_FORMAT_PRESETS['upstream-time']!;
    const blog = (i: number) =>
      `10.0.0.9 - - [21/Nov/2026:10:${String(i % 60).padStart(2, '0')}:01 +0000] "GET /p HTTP/1.1" ` +
      `${['200', '502', '504', '413', '499'][i % 5]} 5 "-" "ua"rt=0.010 ` +
      [
        'uct="0.001" uht="0.002" urt="0.002"',
        'uct="-" uht="-" urt="0.000"',
        'uct="0.001" uht="-" urt="1.000"',
        'uct="-" uht="-" urt="-"',
        'uct="-, 0.001" uht="-, 0.002" urt="0.000, 0.002"',
      ][i % 5];
    const text = `${Array.from({ length: 500 }, (_, i) => blog(i)).join('\n')}\n`;
    const { wasm, js } = countBothWays(spec, text);
    expect(wasm).toEqual(js);
    const counted = (counts: Float64Array) =>
      Object.fromEntries([...counts.entries()].filter(([, n]) => n > 0));
    // An upstream header time, final attempt's, means an upstream answered; none means nginx made it.
    expect(counted(wasm.upstreamReturned)).toEqual({ 200: 100, 499: 100 });
    expect(counted(wasm.proxyGenerated)).toEqual({ 413: 100, 502: 100, 504: 100 });
    expect(wasm.upstreams.size).toBe(0);
  });

  it('reads a file range in pieces, a line longer than the input area and a last line without "\\n"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxyops-wasm-'));
    madeDirs.push(dir);
    try {
      readRangeInPieces(join(dir, 'access.log'));
    } finally {
      // The log is 4 MB: never leave it behind.
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('leaves no temporary file behind', () => {
    expect(madeDirs.length).toBeGreaterThan(0);
    for (const dir of madeDirs) expect(existsSync(dir), dir).toBe(false);
  });
});

/** Scans a 4 MB log with a 3 MB line and a last line without "\n" from `file`, checking the counts. */
function readRangeInPieces(file: string): void {
  const long = textLine({ request: `GET /${'x'.repeat(3 * 1024 * 1024)} HTTP/1.1`, status: '502' });
  const lines = [...Array.from({ length: 5000 }, (_, i) => textLine({ rt: `${i % 10}.001` })), long, 'bad'];
  writeFileSync(file, lines.join('\n'), 'latin1');
  const kit = createLogReaderKit(TEXT);
  const state = createStatsState(kit.capabilities);
  const scan = createLogScan(kit, state, file);
  const fd = openSync(file, 'r');
  try {
    countFileRange(
      fd,
      0,
      Buffer.byteLength(lines.join('\n')),
      createWasmLineScanner(module!, kit.format!)!,
      scan,
    );
  } finally {
    closeSync(fd);
  }
  expect([state.lines, state.records, state.malformed]).toEqual([5002, 5001, 1]);
  expect(state.malformedSamples[0]).toMatchObject({ line: 5002, text: 'bad' });
  expect([...state.paths5xx.keys()][0]).toHaveLength(3 * 1024 * 1024 + 1);
}
