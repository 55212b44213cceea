import { describe, expect, it } from 'vitest';
import {
  alwaysInvisibleBmpRanges,
  findInvisibleCharacter,
  VISIBLE_USES,
} from '../../../api/resources/visible-text.js';

/** Code points nobody sees, each with the kind the refusal names. */
const INVISIBLE: ReadonlyArray<[string, string]> = [
  ['\u200B', 'an invisible format character'], // zero-width space
  ['\uFEFF', 'an invisible format character'], // BOM / zero-width no-break space
  ['\u2060', 'an invisible format character'], // word joiner
  ['\u00AD', 'an invisible format character'], // soft hyphen
  ['\u200E', 'an invisible format character'], // left-to-right mark
  ['\u061C', 'an invisible format character'], // Arabic letter mark
  ['\u180E', 'an invisible format character'], // Mongolian vowel separator
  ['\u{E0001}', 'an invisible format character'], // language tag
  ['\u{1D173}', 'an invisible format character'], // musical symbol begin beam
  ['\u2028', 'a line separator'],
  ['\u2029', 'a paragraph separator'],
  ['\u0085', 'a control character'],
  ['\u0007', 'a control character'],
  ['\u034F', 'an invisible character'], // combining grapheme joiner
  ['\u3164', 'an invisible character'], // Hangul filler
  ['\uFFA0', 'an invisible character'], // halfwidth Hangul filler
];

describe('invisible characters in text', () => {
  it.each(INVISIBLE)('finds %j anywhere in a name, naming its code point and kind', (char, kind) => {
    const codePoint = `U+${(char.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;
    for (const [text, position] of [
      [`${char}Ada`, 0],
      [`Ada${char}`, 3],
      [`Zü${char}rich`, 2],
      [`😀${char}`, 1],
    ] as const)
      expect(findInvisibleCharacter(text), JSON.stringify(text)).toEqual({ codePoint, kind, position });
  });

  it('takes ordinary text in any script, with emoji and combining marks', () => {
    for (const text of [
      'Zürich',
      '東京',
      'Ada Lovelace',
      'e\u0301tienne',
      'Zoë 🚀 李小龙',
      'Ελλάδα',
      'Москва',
    ])
      expect(findInvisibleCharacter(text), text).toBeUndefined();
  });

  it.each(VISIBLE_USES.map((use) => [use.id, use] as const))(
    'lets a joiner or selector through where it shows: %s',
    (_id, use) => {
      expect(findInvisibleCharacter(use.example), use.why).toBeUndefined();
      // It tests the exception: it holds a character refused where it stands alone.
      expect([...use.example].some((char) => findInvisibleCharacter(char) !== undefined)).toBe(true);
    },
  );

  it('keeps every exception linear on long input: it starts with the character it takes, and no repetition is unbounded', () => {
    // A leading lookbehind is tried at every position; with `\p{Mn}*` in it, 40 000 marks took minutes.
    for (const use of VISIBLE_USES) {
      expect(use.sequence.source, use.id).not.toMatch(/^\(\?/);
      expect(use.sequence.source, use.id).not.toMatch(/[*+]|\{\d+,\}/);
    }
  });

  it('refuses the same joiners and selectors where they show nothing', () => {
    for (const text of [
      'A\u200Dda', // ZWJ between Latin letters
      'Ada\u200C', // ZWNJ at the end
      '\u200D\u{1F4BB}', // ZWJ before an emoji with nothing to join
      'Ada\uFE0F', // emoji presentation of a letter
      '1\uFE0F', // a keycap selector without the keycap
      'Ada\uFE00', // a glyph variant of a Latin letter
      '\u{E0067}\u{E0062}\u{E007F}', // tags without the black flag
      '\u{1F3F4}\u{E0067}\u{E0062}', // a flag whose tags never end
    ])
      expect(findInvisibleCharacter(text), JSON.stringify(text)).toBeDefined();
  });

  it('gives the pattern exactly the BMP code points refused wherever they stand', () => {
    const ranges = alwaysInvisibleBmpRanges();
    const inRanges = (c: number) => ranges.some(([low, high]) => c >= low && c <= high);
    for (const [char] of INVISIBLE) {
      const c = char.codePointAt(0) as number;
      if (c <= 0xffff) expect(inRanges(c), char).toBe(true);
    }
    for (const c of [0x200c, 0x200d, 0xfe0f, 0xfe00, 0x180b, 0x20, 0xa0, 0x41, 0xe9, 0x3000])
      expect(inRanges(c), c.toString(16)).toBe(false);
  });
});
