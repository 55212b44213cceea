import { describe, expect, it } from 'vitest';
import { parsePcre } from '../../../../proxy-config/core/nginx-config/pcre/parse-pcre.js';
import {
  anchoredAtEnd,
  anchoredAtStart,
  canHold,
  canStartWith,
  firstChars,
  mustStartWith,
  modelPcre,
} from '../../../../proxy-config/core/nginx-config/pcre/pcre-analysis.js';

const group = (source: string, n: number | string, caseless = false) => {
  const pattern = modelPcre(source, caseless);
  if (!pattern) throw new Error(`${source} did not parse`);
  const found = typeof n === 'number' ? pattern.captures.get(n) : pattern.named.get(n);
  if (!found) throw new Error(`${source} has no group ${n}`);
  return found;
};

describe('pcre analysis: what a capture group can hold', () => {
  it.each([
    ['^/a/(.*)$', 1, '\r', true],
    ['^/a/(.*)$', 1, '\n', false],
    ['^/a/([^/]*)$', 1, '\n', true],
    ['^/a/([^/]*)$', 1, '/', false],
    ['^/a/(\\W+)$', 1, '\n', true],
    ['^/a/(\\s+)$', 1, '\r', true],
    ['^/a/([a-z0-9._-]+)$', 1, '\n', false],
    ['^/a/([a-z0-9._-]+)$', 1, '.', true],
    ['^/a/(\\w+)/(\\d+)$', 2, 'a', false],
    ['^/a/(?:x|y)/(?<rest>[[:alpha:]]+)$', 'rest', 'q', true],
    ['^/a/(?<rest>[[:alpha:]]+)$', 'rest', '\n', false],
    ['^/(?P<n>\\x41+)$', 'n', 'A', true],
    ['^/(?i)(abc)$', 1, 'B', true],
    ['^/(abc)$', 1, 'B', false],
    ['^/(\\Q.*\\E)$', 1, 'x', false],
  ] as const)('%s group %s holds %j: %s', (source, n, ch, expected) => {
    expect(canHold(group(source, n), ch)).toBe(expected);
  });

  it('knows what a group starts with', () => {
    expect(mustStartWith(group('^/x(/.*)$', 1), '/')).toBe(true);
    expect(mustStartWith(group('^/x(/?.*)$', 1), '/')).toBe(false);
    expect(canStartWith(group('^/x(.*)$', 1), '.')).toBe(true);
    expect(canStartWith(group('^/x([a-z]*)$', 1), '.')).toBe(false);
  });

  it('numbers groups past non-capturing ones and lookarounds', () => {
    const pattern = modelPcre('(?:a)(?=b)(c)(?<d>e)');
    expect([...(pattern?.captures.keys() ?? [])]).toEqual([1, 2]);
    expect(pattern?.named.get('d')?.index).toBe(2);
  });

  it('tells anchored patterns from unanchored ones', () => {
    const anchored = (s: string) => {
      const p = modelPcre(s);
      return p && [anchoredAtStart(p), anchoredAtEnd(p)];
    };
    expect(anchored('^https://a\\.test$')).toEqual([true, true]);
    expect(anchored('https://a\\.test')).toEqual([false, false]);
    expect(anchored('^a$|b$')).toEqual([false, true]);
  });

  it('returns undefined for syntax it does not model, instead of guessing', () => {
    expect(modelPcre('^(a)\\1$')).toBeUndefined();
    expect(modelPcre('^(a')).toBeUndefined();
    expect(modelPcre('^(?|a|b)$')).toBeUndefined();
  });
});

describe('pcre analysis: the one tree both the ReDoS check and these rules read', () => {
  it('stays silent on what the tree only stands in for', () => {
    for (const source of ['(a)?(?(1)b|c)', '(?R)?a', '\\p{L}+', '(*UTF)^/a', 'a\\Kb', '(a)\\g1']) {
      expect(parsePcre(source)).toMatchObject({ ok: true });
      expect(modelPcre(source)).toBeUndefined();
    }
    expect(modelPcre('a\\Eb')).toBeDefined();
  });

  it('keeps how a position was written and the one character it matches', () => {
    const first = (source: string, caseless = false) => {
      const regex = modelPcre(source, caseless);
      if (!regex) throw new Error(`${source} is not modelled`);
      return firstChars(regex.root).map(({ source: written, only }) => ({ written, only }));
    };
    expect(first('\\.a')).toEqual([{ written: '\\.', only: '.' }]);
    expect(first('.a')).toEqual([{ written: '.', only: undefined }]);
    expect(first('[.]')).toEqual([{ written: '[.]', only: '.' }]);
    expect(first('[.]', true)).toEqual([{ written: '[.]', only: undefined }]);
    expect(first('a', true)).toEqual([{ written: 'a', only: undefined }]);
    expect(first('\\cA')).toEqual([{ written: '\\cA', only: '\x01' }]);
    expect(first('\\012')).toEqual([{ written: '\\012', only: '\n' }]);
  });

  it('takes \\G as a start anchor', () => {
    const regex = modelPcre('\\G/a$');
    expect(regex && [anchoredAtStart(regex), anchoredAtEnd(regex)]).toEqual([true, true]);
  });

  it('lets (?i) hold to the end of its group, later alternatives included', () => {
    expect(canHold(group('(a(?i)b|c)', 1), 'C')).toBe(true);
    expect(canHold(group('((?i:a)b)', 1), 'B')).toBe(false);
    expect(canHold(group('((?i)a(?-i)b)', 1), 'B')).toBe(false);
  });
});
