import { describe, expect, it } from 'vitest';
import { evaluateFailIf, failIfMetric, parseFailIf } from '../../../proxy-config/core/logs/fail-if.js';
import { presetFormat } from '../../../proxy-config/core/logs/log-format-presets.js';
import { createLogReaderKit } from '../../../proxy-config/core/logs/log-format-presets.js';
import { createLogScan, scanLogText } from '../../../proxy-config/core/logs/scan-log-text.js';
import { createStatsState } from '../../../proxy-config/core/logs/stats-state.js';
import { summarizeStats } from '../../../proxy-config/core/logs/summarize-stats.js';

function summaryOf(statuses: Array<[string, string]>) {
  const kit = createLogReaderKit(presetFormat('proxyops'));
  const state = createStatsState(kit.capabilities);
  const scan = createLogScan(kit, state, 'x');
  const text = statuses
    .map(
      ([status, uht], i) =>
        `1.2.3.4 - - [21/Nov/2026:10:00:0${i % 10} +0000] "GET / HTTP/1.1" ${status} 1 "-" "-" rt=0.${String(i).padStart(3, '0')} ` +
        `uct="0.001" uht="${uht}" urt="0.002" ua="10.0.0.1:80" us="${status}" rid="r" ui="-"\n`,
    )
    .join('');
  scanLogText(scan, text + 'junk\n');
  return summarizeStats(state, { format: 'proxyops', inputs: ['x'] });
}

// 10 records: 6x200, 2x502 (one proxy-made), 1x504 proxy-made, 1x499; one malformed line.
const summary = summaryOf([
  ['200', '0.001'],
  ['200', '0.001'],
  ['200', '0.001'],
  ['200', '0.001'],
  ['200', '0.001'],
  ['200', '0.001'],
  ['502', '0.001'],
  ['502', '-'],
  ['504', '-'],
  ['499', '-'],
]);

describe('--fail-if', () => {
  it('reads metrics: counts, classes, ratios, origin, percentiles, malformed', () => {
    expect(failIfMetric(summary, 'records')).toBe(10);
    expect(failIfMetric(summary, '5xx')).toBe(3);
    expect(failIfMetric(summary, '5xx_ratio')).toBeCloseTo(0.3);
    expect(failIfMetric(summary, '499')).toBe(1);
    expect(failIfMetric(summary, 'proxy_5xx')).toBe(2);
    expect(failIfMetric(summary, 'upstream_502')).toBe(1);
    expect(failIfMetric(summary, 'malformed')).toBe(1);
    expect(failIfMetric(summary, 'p99')).toBe(0.009);
  });

  it.each([
    ['5xx_ratio>0.01', true],
    ['5xx_ratio > 0.5', false],
    ['5xx_ratio>=30%', true],
    ['499>100', false],
    ['499>=1 && proxy_5xx==2', true],
    ['499>5 || 504==1', true],
    ['not (records > 5)', false],
    ['!(502 != 2) and p50 < 1', true],
    ['malformed_ratio > 0.05', true],
  ])('%s → %s', (text, expected) => {
    expect(evaluateFailIf(parseFailIf(text), summary)).toBe(expected);
  });

  it.each(['', '5xx>', '5xx >> 1', 'latency>1', '5xx>1 &&', '(5xx>1', '5xx>abc'])(
    'rejects "%s" with BAD_OPTION',
    (text) => {
      expect(() => parseFailIf(text)).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
    },
  );

  it('refuses a percentage on a count or a time: 5xx>50% would hold at a 10 % share', () => {
    expect(() => parseFailIf('5xx>50%')).toThrow(
      /"50%" is a percentage but "5xx" is not a share; use 5xx_ratio/,
    );
    expect(() => parseFailIf('proxy_502 >= 1% or records>0')).toThrow(/use proxy_502_ratio/);
    expect(() => parseFailIf('p99>50%')).toThrow(/"p99" is not a share$/);
    expect(parseFailIf('5xx_ratio>50%')).toEqual({
      kind: 'compare',
      metric: '5xx_ratio',
      op: '>',
      value: 0.5,
    });
  });

  // A combined log has no $upstream_header_time or $request_time: proxy_5xx and p99 are unknown.
  const combined = (() => {
    const kit = createLogReaderKit(presetFormat('combined'));
    const state = createStatsState(kit.capabilities);
    scanLogText(
      createLogScan(kit, state, 'c'),
      '1.2.3.4 - - [21/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 502 1 "-" "-"\n',
    );
    return summarizeStats(state, { format: 'combined', inputs: ['c'] });
  })();

  it.each([
    ['proxy_5xx>0', false],
    ['not proxy_5xx>0', false],
    ['!(p99>1)', false],
    ['!(p99>1 and 502>5)', true],
    ['not (proxy_5xx>0 or 502==1)', false],
    ['not proxy_5xx>0 or 502==1', true],
    ['!(p99>1) and 502==1', false],
  ])(
    'on a combined log, %s → %s: an unknown metric stays unknown through not, and never holds',
    (text, expected) => {
      expect(evaluateFailIf(parseFailIf(text), combined)).toBe(expected);
    },
  );
});
