/**
 * Character classes that every common regular-expression engine reads alike: ECMAScript without a
 * flag, with `u` and with `v` (JSON Schema validators use each; Spectral's `format: regex` check
 * compiles without one), PCRE2, RE2 (and so Go) and Rust's `regex`. They share no escape for a
 * character above U+00FF (`\uXXXX` is ECMAScript's and Rust's, `\x{...}` the others'), so such
 * characters are written as themselves; ASCII and Latin-1 are `\xHH`, which all of them read as that
 * code point (so no bare punctuator, which `v` may refuse in a class, is ever written). Only
 * characters of the Basic Multilingual Plane outside the surrogates are ever named: without the `u`
 * flag an astral character is two code units, and UTF-8 engines cannot hold a surrogate at all.
 */

/** Inclusive code point ranges. */
export type CodePointRanges = ReadonlyArray<readonly [number, number]>;

function writeCodePoint(codePoint: number): string {
  if (codePoint > 0xffff || (codePoint >= 0xd800 && codePoint <= 0xdfff))
    throw new RangeError(`U+${codePoint.toString(16)} cannot be named portably in a pattern`);
  return codePoint <= 0xff
    ? `\\x${codePoint.toString(16).toUpperCase().padStart(2, '0')}`
    : String.fromCodePoint(codePoint);
}

/** A class of `ranges` (`[...]`), or of everything else (`[^...]`), in the syntax the engines share. */
export function toCharClass(ranges: CodePointRanges, options: { negated?: boolean } = {}): string {
  const parts = ranges.map(([low, high]) =>
    low === high ? writeCodePoint(low) : `${writeCodePoint(low)}-${writeCodePoint(high)}`,
  );
  return `[${options.negated ? '^' : ''}${parts.join('')}]`;
}
