import { describe, expect, it } from 'vitest';
import { parseIfMatch, toEtag } from '../../../api/http/etag.js';

describe('ETag and If-Match', () => {
  it('reads back the version of the ETag it wrote', () => {
    for (const version of [1, 7, 123456]) expect(parseIfMatch(toEtag(version))).toEqual([version]);
  });

  it('treats an absent header and * as no precondition, anything foreign or weak as never matching', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(parseIfMatch('*')).toBeUndefined();
    for (const foreign of ['W/"v1"', '"abc"', 'v1', '""']) expect(parseIfMatch(foreign)).toEqual([]);
  });

  it('accepts a list: any one of its tags matching passes (RFC 9110)', () => {
    expect(parseIfMatch('"v9", "v5"')).toEqual([9, 5]);
    expect(parseIfMatch('W/"v5", "v5"')).toEqual([5]);
  });
});
