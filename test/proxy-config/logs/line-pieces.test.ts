import { describe, expect, it } from 'vitest';
import { createLinePieces } from '../../../proxy-config/core/logs/line-pieces.js';

/** Feeds `chunks` through one buffer that is overwritten each time, as followLogFile reads. */
function throughReusedBuffer(chunks: string[]): Array<string | undefined> {
  const pieces = createLinePieces({ reusesChunks: true });
  const buf = Buffer.alloc(64);
  const out = chunks.map((chunk) => pieces.push(buf.subarray(0, buf.write(chunk, 'latin1'))));
  buf.fill('#');
  return [...out, pieces.end()];
}

describe('createLinePieces', () => {
  it('joins a line cut across several chunks once its newline comes', () => {
    const pieces = createLinePieces({ reusesChunks: false });
    expect(pieces.push(Buffer.from('GET /a'))).toBeUndefined();
    expect(pieces.push(Buffer.from('bc'))).toBeUndefined();
    expect(pieces.push(Buffer.from('de 200\nGET /f'))).toBe('GET /abcde 200\n');
    expect(pieces.push(Buffer.from(' 404\nGET /g 500\nGET'))).toBe('GET /f 404\nGET /g 500\n');
    expect(pieces.end()).toBe('GET');
    expect(pieces.end()).toBeUndefined();
  });

  it('takes empty chunks and chunks that end exactly at a newline', () => {
    const pieces = createLinePieces({ reusesChunks: false });
    expect(pieces.push(Buffer.alloc(0))).toBeUndefined();
    expect(pieces.push(Buffer.from('a\n'))).toBe('a\n');
    expect(pieces.push(Buffer.alloc(0))).toBeUndefined();
    expect(pieces.push(Buffer.from('b'))).toBeUndefined();
    expect(pieces.push(Buffer.alloc(0))).toBeUndefined();
    expect(pieces.push(Buffer.from('\n'))).toBe('b\n');
    expect(pieces.end()).toBeUndefined();
  });

  it('keeps copies of the pieces when the caller reuses its buffer', () => {
    expect(throughReusedBuffer(['abc', 'def', 'g\nhi', 'j'])).toEqual([
      undefined,
      undefined,
      'abcdefg\n',
      undefined,
      'hij',
    ]);
  });

  it('forgets a partial line on reset', () => {
    const pieces = createLinePieces({ reusesChunks: false });
    pieces.push(Buffer.from('half a li'));
    pieces.reset();
    expect(pieces.push(Buffer.from('new\n'))).toBe('new\n');
  });

  it('keeps bytes that are not UTF-8 as they are (one char per byte)', () => {
    const pieces = createLinePieces({ reusesChunks: false });
    pieces.push(Buffer.from([0xff, 0xc3]));
    expect(pieces.push(Buffer.from([0x0a]))).toBe('\xff\xc3\n');
  });
});
