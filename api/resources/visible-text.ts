import type { CodePointRanges } from './portable-pattern.js';

/**
 * Which code points text fields refuse because nobody can see them: controls (Cc), format
 * characters (Cf: U+200B, U+FEFF, U+2060, the bidirectional controls...), line and paragraph
 * separators (Zl, Zp) and every other Default_Ignorable_Code_Point (variation selectors, Hangul
 * fillers, U+034F...). With them, "Ada" and "Ada\u200B" are two names that look the same.
 *
 * A few of them are not invisible where they stand, and text in some scripts needs them there, so
 * they are let through in that place only (as PRECIS, RFC 8264, does for the joiners). Each
 * `sequence` starts with the character it lets through and bounds every repetition: a lookbehind
 * first, or `\p{Mn}*` inside one, is tried at every position and made a body of 40 000 combining
 * marks take minutes.
 */
export const VISIBLE_USES: ReadonlyArray<{ id: string; why: string; example: string; sequence: RegExp }> = [
  {
    id: 'joiner-after-virama',
    why: 'ZWJ/ZWNJ after a virama pick a half form or a conjunct (Devanagari, Malayalam, Sinhala...)',
    example: '\u0915\u094D\u200D\u0937',
    // Unicode's viramas (canonical combining class 9), which ECMAScript has no property for.
    sequence:
      /[\u200C\u200D](?<=[\u094D\u09CD\u0A4D\u0ACD\u0B4D\u0BCD\u0C4D\u0CCD\u0D3B\u0D3C\u0D4D\u0DCA\u0E3A\u0EBA\u0F84\u1039\u103A\u1714\u1715\u1734\u17D2\u1A60\u1B44\u1BAA\u1BAB\u1BF2\u1BF3\u2D7F\uA806\uA82C\uA8C4\uA953\uA9C0\uAAF6\uABED\u{10A3F}\u{11046}\u{11070}\u{1107F}\u{110B9}\u{11133}\u{11134}\u{111C0}\u{11235}\u{112EA}\u{1134D}\u{11442}\u{114C2}\u{115BF}\u{1163F}\u{116B6}\u{1172B}\u{11839}\u{1193D}\u{1193E}\u{119E0}\u{11A34}\u{11A47}\u{11A99}\u{11C3F}\u{11D44}\u{11D45}\u{11D97}][\u200C\u200D])/gu,
  },
  {
    id: 'joiner-in-cursive-script',
    why: 'ZWNJ/ZWJ between letters of a joining script break or force the join (Persian, Urdu, Syriac...)',
    example: '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645',
    sequence:
      /[\u200C\u200D](?<=\p{L}\p{Mn}{0,4}[\u200C\u200D])(?<=[\p{sc=Arabic}\p{sc=Syriac}\p{sc=Nko}\p{sc=Mongolian}\p{sc=Mandaic}\p{sc=Manichaean}\p{sc=Psalter_Pahlavi}\p{sc=Adlam}\p{sc=Hanifi_Rohingya}\p{sc=Sogdian}\p{sc=Chorasmian}\p{sc=Old_Uyghur}\p{sc=Phags_Pa}]\p{Mn}{0,4}[\u200C\u200D])(?=\p{Mn}{0,4}[\p{sc=Arabic}\p{sc=Syriac}\p{sc=Nko}\p{sc=Mongolian}\p{sc=Mandaic}\p{sc=Manichaean}\p{sc=Psalter_Pahlavi}\p{sc=Adlam}\p{sc=Hanifi_Rohingya}\p{sc=Sogdian}\p{sc=Chorasmian}\p{sc=Old_Uyghur}\p{sc=Phags_Pa}])/gu,
  },
  {
    id: 'emoji-zwj-sequence',
    why: 'ZWJ between two emoji makes one (woman technologist, rainbow flag)',
    example: '\u{1F469}\u{1F3FD}\u200D\u{1F4BB} \u{1F3F3}\uFE0F\u200D\u{1F308}',
    sequence:
      /\u200D(?<=\p{Extended_Pictographic}[\uFE0F\p{Emoji_Modifier}]?\u200D)(?=\p{Extended_Pictographic})/gu,
  },
  {
    id: 'emoji-presentation',
    why: 'VS15/VS16 after an emoji choose its text or emoji style',
    example: '\u2764\uFE0F \u263A\uFE0E',
    sequence: /[\uFE0E\uFE0F](?<=\p{Emoji}[\uFE0E\uFE0F])(?<!\p{ASCII}[\uFE0E\uFE0F])/gu,
  },
  {
    id: 'keycap',
    why: 'VS16 between a digit, # or * and the enclosing keycap makes a keycap emoji',
    example: '1\uFE0F\u20E3 *\uFE0F\u20E3',
    // \x2A is the asterisk, spelled so that no quantifier character stands in a sequence.
    sequence: /\uFE0F(?<=[0-9#\x2A]\uFE0F)(?=\u20E3)/gu,
  },
  {
    id: 'emoji-tag-sequence',
    why: 'tag characters after a black flag spell a subdivision flag (Scotland, Wales)',
    example: '\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}',
    sequence: /\u{1F3F4}[\u{E0020}-\u{E007E}]{1,32}\u{E007F}/gu,
  },
  {
    id: 'mongolian-variation',
    why: 'Mongolian free variation selectors choose a letter form',
    example: '\u1820\u180B',
    sequence:
      /[\u180B-\u180D\u180F](?<=\p{L}[\u180B-\u180D\u180F])(?<=\p{sc=Mongolian}[\u180B-\u180D\u180F])/gu,
  },
  {
    id: 'glyph-variation',
    why: 'the other variation selectors choose a glyph of an ideograph or a symbol (not of a Latin, Greek or Cyrillic letter)',
    example: '\u845B\u{E0100} \u2229\uFE00',
    sequence:
      /[\uFE00-\uFE0D\u{E0100}-\u{E01EF}](?<=[\p{L}\p{N}\p{S}][\uFE00-\uFE0D\u{E0100}-\u{E01EF}])(?<![\p{ASCII}\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}][\uFE00-\uFE0D\u{E0100}-\u{E01EF}])/gu,
  },
];

/** Every code point refused outside the uses above. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;
const EACH_INVISIBLE = new RegExp(INVISIBLE.source, 'gu');

/** The code points of the BMP some use above lets through: these cannot go into a fixed pattern. */
const SOMETIMES_VISIBLE_BMP: CodePointRanges = [
  [0x180b, 0x180d],
  [0x180f, 0x180f],
  [0x200c, 0x200d],
  [0xfe00, 0xfe0f],
];

/** An invisible code point found in text: `U+200B`, what it is, and where (in code points, from 0). */
export interface InvisibleCharacter {
  codePoint: string;
  kind: string;
  position: number;
}

function kindOf(char: string): string {
  if (/\p{Cc}/u.test(char)) return 'a control character';
  if (/\p{Cf}/u.test(char)) return 'an invisible format character';
  if (/\p{Zl}/u.test(char)) return 'a line separator';
  if (/\p{Zp}/u.test(char)) return 'a paragraph separator';
  return 'an invisible character';
}

/** The first code point of `text` nobody can see where it stands, or undefined when there is none. */
export function findInvisibleCharacter(text: string): InvisibleCharacter | undefined {
  // Fast path: most text holds none of them.
  if (!INVISIBLE.test(text)) return undefined;
  const visible = new Set<number>();
  for (const use of VISIBLE_USES)
    for (const match of text.matchAll(use.sequence))
      for (let i = 0; i < match[0].length; i += 1) visible.add(match.index + i);
  for (const match of text.matchAll(EACH_INVISIBLE)) {
    if (visible.has(match.index)) continue;
    const codePoint = match[0].codePointAt(0) as number;
    return {
      codePoint: `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`,
      kind: kindOf(match[0]),
      position: [...text.slice(0, match.index)].length,
    };
  }
  return undefined;
}

/**
 * The code points of the Basic Multilingual Plane refused wherever they stand, as ranges: the part
 * of the rule a JSON Schema pattern can state (the rest is checked in `validate.ts`).
 */
export function alwaysInvisibleBmpRanges(): CodePointRanges {
  const ranges: Array<[number, number]> = [];
  for (let codePoint = 0; codePoint <= 0xffff; codePoint += 1) {
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
    const char = String.fromCodePoint(codePoint);
    if (
      !INVISIBLE.test(char) ||
      SOMETIMES_VISIBLE_BMP.some(([low, high]) => codePoint >= low && codePoint <= high)
    )
      continue;
    const last = ranges.at(-1);
    if (last && last[1] === codePoint - 1) last[1] = codePoint;
    else ranges.push([codePoint, codePoint]);
  }
  return ranges;
}
