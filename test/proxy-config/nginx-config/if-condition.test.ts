import { describe, expect, it } from 'vitest';
import { ifCondition } from '../../../proxy-config/core/nginx-config/if-condition.js';

describe('ifCondition', () => {
  const at = (args: string[]) => ifCondition({ name: 'if', args, file: 'x', line: 1, children: [] });
  it('reads a condition as the parser stores it, without its parentheses', () => {
    const expected = {
      variable: '$http_origin',
      operator: '~*',
      regex: '^https://a$',
      negated: false,
      caseless: true,
    };
    expect(at(['$http_origin', '~*', '^https://a$'])).toEqual(expected);
    expect(at(['$a', '!~', '(b|c)'])).toMatchObject({ regex: '(b|c)', negated: true });
    expect(at(['-f', '$request_filename'])).toBeUndefined();
    expect(at(['$http_x'])).toBeUndefined();
  });
});
