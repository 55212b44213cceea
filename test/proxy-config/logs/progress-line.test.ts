import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  formatBytes,
  formatDuration,
  formatProgress,
  PROGRESS_AFTER_MS,
} from '../../../proxy-config/core/logs/format-progress.js';
import {
  runLogsStatsCommand,
  type LogsStatsCommandOptions,
} from '../../../proxy-config/logs/logs-stats-command.js';
import { createProgressLine } from '../../../proxy-config/shell/logs/progress-line.js';

describe('the progress line of a long logs stats run', () => {
  it('says bytes read of the total, the percentage, the rate and the time left', () => {
    expect(formatProgress({ read: 412e6, total: 1.07e9, elapsedMs: 2000 })).toBe(
      'proxyops: read 412 MB of 1.1 GB (38 %), 206 MB/s, 3 s left',
    );
    expect(formatProgress({ read: 0, total: 5e9, elapsedMs: 2500 })).toBe(
      'proxyops: read 0 B of 5.0 GB (0 %), 0 B/s, ? left',
    );
    // A file that grew while read never shows more than its total.
    expect(formatProgress({ read: 3e6, total: 2e6, elapsedMs: 4000 })).toBe(
      'proxyops: read 2.0 MB of 2.0 MB (100 %), 500 kB/s, 0 s left',
    );
    expect([formatBytes(999), formatBytes(1000), formatBytes(15_300), formatBytes(2.5e9)]).toEqual([
      '999 B',
      '1.0 kB',
      '15 kB',
      '2.5 GB',
    ]);
    expect([
      formatDuration(400),
      formatDuration(59_400),
      formatDuration(185_000),
      formatDuration(7_620_000),
    ]).toEqual(['0 s', '59 s', '3 min 05 s', '2 h 07 min']);
  });

  it('draws nothing before the run has taken two seconds, then over itself, and clears what it drew', () => {
    let t = 0;
    let written = '';
    const line = createProgressLine({ write: (text: string) => (written += text) }, () => t);
    line.update(10, 100);
    t = PROGRESS_AFTER_MS - 1;
    line.update(20, 100);
    expect(written).toBe('');
    t = PROGRESS_AFTER_MS;
    line.update(30, 100);
    t += 100; // redrawn at most every 250 ms
    line.update(40, 100);
    t += 150;
    line.update(50, 100);
    line.clear();
    expect(written.split('\r')).toEqual([
      '',
      'proxyops: read 30 B of 100 B (30 %), 15 B/s, 5 s left\x1b[K',
      'proxyops: read 50 B of 100 B (50 %), 22 B/s, 2 s left\x1b[K',
      '\x1b[K',
    ]);
    // A short run clears nothing either.
    const quiet = createProgressLine({ write: () => expect.fail('wrote') }, () => 0);
    quiet.update(1, 2);
    quiet.clear();
  });

  describe('in the command', () => {
    let dir: string;
    let log: string;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'proxyops-progress-'));
      log = join(dir, 'access.log.gz');
      const line =
        '10.0.0.9 - - [21/Nov/2026:10:00:01 +0000] "GET /api/x HTTP/1.1" 200 5 "-" "ua" rt=0.020 ' +
        'uct="0.001" uht="0.010" urt="0.015" ua="10.0.0.1:80" us="200" rid="r" ui="-"\n';
      // Random-ish request ids so the .gz file is large enough for several reads.
      let text = '';
      for (let i = 0; i < 40_000; i++)
        text += line.replace('rid="r"', `rid="${(i * 2654435761) % 4294967296}"`);
      await writeFile(log, gzipSync(text));
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    /** Runs the command on a terminal or a pipe, with a clock that moves a second at every look. */
    async function run(options: LogsStatsCommandOptions, terminal: boolean) {
      let out = '';
      let err = '';
      let t = 0;
      const code = await runLogsStatsCommand(
        [log],
        { preset: 'proxyops', ...options },
        {
          stdout: { write: (text: string) => (out += text), isTTY: terminal },
          stderr: { write: (text: string) => (err += text), isTTY: terminal },
          stdin: Object.assign(Readable.from([]), { isTTY: terminal }),
          env: {},
          now: () => (t += 1000),
        },
      );
      return { code, out, err };
    }

    it('shows it on a terminal and clears it before the output', async () => {
      const { code, err, out } = await run({}, true);
      expect(code).toBe(0);
      const drawn = err.split('\r').filter(Boolean);
      expect(drawn.length).toBeGreaterThan(1);
      for (const line of drawn.slice(0, -1))
        expect(line).toMatch(
          /^proxyops: read [\d.]+ kB of [\d.]+ kB \(\d+ %\), [\d.]+ kB\/s, \d+ s left.\[K$/,
        );
      expect(err.endsWith('\r\x1b[K')).toBe(true);
      expect(out).toContain('40000');
    });

    it('never on a pipe, beside --json or under --quiet', async () => {
      for (const [options, terminal] of [
        [{}, false],
        [{ json: true }, true],
        [{ prom: true }, true],
        [{ quiet: true }, true],
      ] as const) {
        const { code, err } = await run(options, terminal);
        expect(code).toBe(0);
        expect(err).toBe('');
      }
    });
  });
});
