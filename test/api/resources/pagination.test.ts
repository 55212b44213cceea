import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, planPage, toPage } from '../../../api/resources/pagination.js';

const limits = { pageSizeDefault: 3, pageSizeMax: 10 };

describe('cursor pagination', () => {
  it('a cursor decodes to the position it encodes', () => {
    for (const position of ['1', '42', '900719925474099'])
      expect(decodeCursor(encodeCursor(position))).toBe(position);
  });

  it('rejects cursors it did not issue', () => {
    for (const cursor of [
      '',
      'abc',
      '-1',
      '1.5',
      '0x10',
      ' 1',
      '1'.repeat(19),
      Buffer.from('p:1').toString('base64url'),
    ])
      expect(() => decodeCursor(cursor)).toThrow(/cursor/);
  });

  it('0 is the position before the first row, and leading zeros name the same position', () => {
    expect(decodeCursor('0')).toBe('0');
    expect(decodeCursor('007')).toBe('7');
    expect(decodeCursor('9'.repeat(18))).toBe('9'.repeat(18));
  });

  it('cuts limit + 1 rows into a page and points the next cursor at its last row', () => {
    const window = planPage({}, limits);
    const rows = [1, 2, 3, 4].map((n) => ({ seq: String(n) }));
    const page = toPage(rows, window, (row) => row.seq);
    expect(page.items).toEqual(['1', '2', '3']);
    expect(decodeCursor(page.nextCursor as string)).toBe('3');
    expect(toPage(rows.slice(0, 3), window, (row) => row.seq).nextCursor).toBeNull();
  });
});
