import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readStreamLines } from '../../../proxy-config/shell/logs/read-log-input.js';

async function collect(pieces: Buffer[]): Promise<string[]> {
  const out: string[] = [];
  for await (const text of readStreamLines(Readable.from(pieces))) out.push(text);
  return out;
}

describe('readStreamLines', () => {
  it('yields whole lines whatever the chunks, and the last line without its newline', async () => {
    const text = 'a\nbb\nccc\ndddd';
    for (let size = 1; size <= text.length; size++) {
      const pieces: Buffer[] = [];
      for (let i = 0; i < text.length; i += size) pieces.push(Buffer.from(text.slice(i, i + size)));
      const out = await collect(pieces);
      expect(out.join(''), `chunks of ${size}`).toBe(text);
      for (const part of out.slice(0, -1)) expect(part.endsWith('\n')).toBe(true);
    }
  });

  it('yields a 48 MB line read in 16 KB chunks whole, as one line', async () => {
    const piece = Buffer.alloc(16 * 1024, 'a');
    const pieces = Array.from({ length: 3072 }, () => piece);
    const out = await collect([...pieces, Buffer.from('\nnext\n')]);
    expect(out).toHaveLength(1);
    expect(out[0]!.split('\n').map((line) => line.length)).toEqual([48 * 1024 * 1024, 4, 0]);
    expect(out[0]!.endsWith('a\nnext\n')).toBe(true);
  });
});
