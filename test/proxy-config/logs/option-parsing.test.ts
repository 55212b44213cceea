import { describe, expect, it } from 'vitest';
import {
  createLineFilter,
  parseStatusFilter,
  parseUpstreamFilter,
} from '../../../proxy-config/core/logs/log-filter.js';
import { defaultJobs, MAX_JOBS, parseJobs } from '../../../proxy-config/core/logs/parse-jobs-option.js';
import { COMPRESSED_BYTE_COST, planFileThreads } from '../../../proxy-config/core/logs/plan-file-threads.js';
import {
  INTERVAL_BOUNDS,
  parseDuration,
  parseTimeOption,
} from '../../../proxy-config/core/logs/parse-time-option.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const time = (text: string) => parseTimeOption(text, '--since', NOW);
const CAPS = { time: true, requestTime: true, upstream: true, headerTime: true, path: true };

describe('--since / --until', () => {
  it.each([
    ['22/Nov/2026:02:24:03 +0000', Date.UTC(2026, 10, 22, 2, 24, 3)],
    ['22/Nov/2026:02:24:03 +0130', Date.UTC(2026, 10, 22, 0, 54, 3)],
    ['29/Feb/2024:23:59:59 -1200', Date.UTC(2024, 2, 1, 11, 59, 59)],
    ['2026-11-22T02:24:03Z', Date.UTC(2026, 10, 22, 2, 24, 3)],
    ['2026-11-22T02:24:03.250+02:00', Date.UTC(2026, 10, 22, 0, 24, 3, 250)],
    ['2026-11-22T02:24+0530', Date.UTC(2026, 10, 21, 20, 54)],
    ['2026-11-22', Date.UTC(2026, 10, 22)],
    ['2026-11-22T02:24:03', new Date(2026, 10, 22, 2, 24, 3).getTime()],
    ['1763778243', 1763778243000],
    ['15m', NOW - 15 * 60_000],
  ])('reads %s', (text, expected) => {
    expect(time(text)).toBe(expected);
  });

  it.each([
    '31/Nov/2025:10:00:00 +0000',
    '29/Feb/2025:10:00:00 +0000',
    '21/Nov/2025:25:00:00 +0000',
    '21/Nov/2025:10:60:00 +0000',
    '21/Nov/2025:10:00:00 +9999',
    '21/Nov/2025:10:00:00 +1430',
    '21/Nov/2025:10:00:00 +0060',
    '21/Foo/2025:10:00:00 +0000',
    '2025-02-30T00:00:00Z',
    '2025-13-01',
    '2025-00-10',
    '2025-11-00',
    '2025-11-21T24:00:00Z',
    '2025-11-21T10:00:61Z',
    '2025-11-21T10:00:00+25:00',
    '-1',
    'yesterday',
    'Sat, 21 Nov 2026 10:00:00 GMT',
    '',
  ])('refuses %j as not a time', (text) => {
    expect(() => time(text)).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
    expect(() => time(text)).toThrow(/is not a time/);
  });

  it.each(['10000000000000000', '99999999999h', '1969-12-31T23:59:59Z'])(
    'refuses %s: before 1970 or after 9999',
    (text) => {
      expect(() => time(text)).toThrow(/is not between 1970 and 9999/);
    },
  );

  it('refuses --since at or after --until', () => {
    const filter = (sinceMs: number, untilMs: number) => () =>
      createLineFilter({ sinceMs, untilMs }, CAPS, 'default');
    expect(filter(2000, 1000)).toThrow(
      /--since \(1970-01-01T00:00:02.000Z\) must be earlier than --until \(1970-01-01T00:00:01.000Z\)/,
    );
    expect(filter(1000, 1000)).toThrow(/must be earlier than --until/);
    expect(filter(1000, 2000)()).not.toBeNull();
  });
});

describe('--interval', () => {
  const interval = (text: string) => parseDuration(text, '--interval', INTERVAL_BOUNDS);

  it('takes 100 ms to 24 h', () => {
    expect(interval('100ms')).toBe(100);
    expect(interval('10s')).toBe(10_000);
    expect(interval('24h')).toBe(86_400_000);
    expect(interval('1d')).toBe(86_400_000);
  });

  it.each(['1ms', '99ms', '0.01s', '25d', '24.5h', '99999999999h', '1e400'])('refuses %s', (text) => {
    expect(() => interval(text)).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });

  it('names the range', () => {
    expect(() => interval('25d')).toThrow('--interval: "25d" is out of range (100ms to 1d)');
  });
});

describe('--status', () => {
  it('reads classes, codes and ranges', () => {
    expect(parseStatusFilter('5xx, 499,500-504')).toEqual([
      [500, 599],
      [499, 499],
      [500, 504],
    ]);
  });

  it('refuses a range from high to low', () => {
    expect(() => parseStatusFilter('504-500')).toThrow(
      /"504-500" is a range from high to low; write 500-504/,
    );
  });
});

describe('--upstream', () => {
  it.each([
    '10.0.1.11',
    '10.0.1.11:8080',
    'app.internal',
    'app-1:80',
    'backend_pool',
    '[::1]',
    '[::1]:8080',
    '[fe80::1%eth0]:80',
    'unix:/run/app.sock',
  ])('takes %s', (text) => {
    expect(parseUpstreamFilter(text)).toBe(text);
  });

  it.each([
    ['', /is empty/],
    ['h:99999', /no port from 1 to 65535/],
    ['h:0', /no port from 1 to 65535/],
    ['h:', /no port from 1 to 65535/],
    ['h:http', /no port from 1 to 65535/],
    ['not an address', /is not an address/],
    ['::1', /is not an address/],
    ['[nothex]:80', /is not an address/],
    ['10.0.1.256', /is not an IPv4 address/],
    ['10.0.1', /is not an IPv4 address/],
    ['unix:', /unix socket/],
  ])('refuses %j', (text, message) => {
    expect(() => parseUpstreamFilter(text)).toThrow(message);
    expect(() => parseUpstreamFilter(text)).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });
});

describe('--jobs', () => {
  it('takes a whole number from 1 to 64', () => {
    expect(parseJobs('1')).toBe(1);
    expect(parseJobs(' 64 ')).toBe(MAX_JOBS);
    for (const text of ['0', '65', '2.5', '', 'x', '1e1'])
      expect(() => parseJobs(text)).toThrow(`--jobs: "${text}" is not a whole number from 1 to 64`);
  });

  it('defaults to the cores, within the same 1 to 64', () => {
    expect(defaultJobs(8)).toBe(8);
    expect(defaultJobs(128)).toBe(64);
    expect(defaultJobs(0)).toBe(1);
  });

  it('splits a plain file across threads from the split size on, one range per thread at least', () => {
    const MB = 1024 * 1024;
    const plain = (size: number) => [{ size, compressed: false }];
    const shape = ({ threads, ranges }: { threads: number; ranges: number[] }) => ({ threads, ranges });
    expect(shape(planFileThreads(plain(256 * MB - 1), 2, 256 * MB, 8 * MB))).toEqual({
      threads: 1,
      ranges: [1],
    });
    expect(shape(planFileThreads(plain(256 * MB), 2, 256 * MB, 8 * MB))).toEqual({
      threads: 2,
      ranges: [32],
    });
    expect(shape(planFileThreads(plain(1024 * MB + 1), 4, 256 * MB, 8 * MB))).toEqual({
      threads: 4,
      ranges: [129],
    });
    // --jobs 1 never splits; a tiny file forced to split still gives every thread a range.
    expect(shape(planFileThreads(plain(1024 * MB), 1, 256 * MB, 8 * MB))).toEqual({
      threads: 1,
      ranges: [1],
    });
    expect(shape(planFileThreads(plain(100), 7, 0, 8 * MB))).toEqual({ threads: 7, ranges: [7] });
  });

  it('plans several files as one run: the total decides, .gz files whole, largest first', () => {
    const MB = 1024 * 1024;
    // Four plain files that are small alone but large together are split as one 1 GB file would be.
    const four = Array.from({ length: 4 }, () => ({ size: 256 * MB, compressed: false }));
    const plan = planFileThreads(four, 2, 160 * MB, 2 * MB);
    expect(plan.threads).toBe(2);
    expect(plan.ranges).toEqual([128, 128, 128, 128]);
    expect(plan.order).toEqual(Array.from({ length: 512 }, (_, i) => i));
    // Compressed bytes weigh COMPRESSED_BYTE_COST plain ones: 24 MB of .gz is a large run. The .gz
    // files are taken first, largest first, then the plain ranges.
    const mixed = [
      { size: 10 * MB, compressed: true },
      { size: 4 * MB, compressed: false },
      { size: 14 * MB, compressed: true },
    ];
    expect(COMPRESSED_BYTE_COST * 24 * MB).toBeGreaterThan(160 * MB);
    expect(planFileThreads(mixed, 2, 160 * MB, 2 * MB)).toEqual({
      threads: 2,
      ranges: [1, 2, 1],
      order: [3, 0, 1, 2],
    });
    // .gz files only: a thread per core, each taking whole files; never more threads than files.
    const gz = (count: number) => Array.from({ length: count }, () => ({ size: 30 * MB, compressed: true }));
    expect(planFileThreads(gz(4), 2, 160 * MB, 2 * MB)).toEqual({
      threads: 2,
      ranges: [1, 1, 1, 1],
      order: [0, 1, 2, 3],
    });
    expect(planFileThreads(gz(3), 8, 160 * MB, 2 * MB).threads).toBe(3);
    // A small run: one thread, each file one piece.
    expect(planFileThreads(mixed, 2, 1024 * MB, 2 * MB)).toEqual({
      threads: 1,
      ranges: [1, 1, 1],
      order: [2, 0, 1],
    });
  });
});
