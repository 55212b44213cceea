import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presetFormat } from '../../../proxy-config/core/logs/log-format-presets.js';
import { computeLogStats } from '../../../proxy-config/logs/logs-stats.js';
import { SCANNER_MIN_BYTES } from '../../../proxy-config/shell/logs/log-range-worker.js';
import { mutations, TEXT, TEXT_LINES } from './log-line-corpus.js';

// Small runs are read by the JavaScript reader, large ones by the WASM scanner (which leaves what it
// cannot read to the same reader). Whichever reads them, the same lines give the same statistics.
describe('files either side of the scanner threshold', () => {
  let dir: string;
  let lines: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-threshold-'));
    const corpus = [...TEXT_LINES, ...mutations(TEXT_LINES)];
    lines = [];
    for (let size = 0, i = 0; size < SCANNER_MIN_BYTES * 1.5; i++) {
      const line = corpus[i % corpus.length]!;
      lines.push(line);
      size += line.length + 1;
    }
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('one large file (the scanner) and the same lines in small files (JavaScript) agree', async () => {
    const whole = join(dir, 'whole.log');
    await writeFile(whole, lines.join('\n') + '\n');
    const parts: string[] = [];
    const perPart = Math.ceil(lines.length / 4);
    for (let p = 0; p * perPart < lines.length; p++) {
      const part = join(dir, `part-${p}.log`);
      const text = lines.slice(p * perPart, (p + 1) * perPart).join('\n') + '\n';
      expect(Buffer.byteLength(text)).toBeLessThan(SCANNER_MIN_BYTES);
      await writeFile(part, text);
      parts.push(part);
    }
    const spec = presetFormat(TEXT.name);
    const large = await computeLogStats({ inputs: [whole], spec });
    // The threshold is the run's total: these parts are read by the JavaScript reader only when told.
    const small = await computeLogStats({ inputs: parts, spec, scannerMinBytes: Infinity });
    expect(large.records).toBeGreaterThan(0);
    expect(large.malformed.count).toBeGreaterThan(0);
    // Malformed samples name their file and line; everything else must be equal.
    const counts = (summary: typeof large) => ({
      ...summary,
      inputs: [],
      malformed: summary.malformed.count,
    });
    expect(counts(small)).toEqual(counts(large));
  });
});
