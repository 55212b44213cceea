// nginx writes one value per upstream attempt, separated by ", ", and " : " where an internal redirect
// moved the request to another upstream group: "502, 200" or "127.0.0.1:9109, 127.0.0.1:9101 : unix:/s".

/**
 * Calls `each(a, b, k)` for the k-th value of the list at `[a, b)` of `s`. Values hold no spaces, so a
 * list without a space is one value and costs one indexOf. Returns the number of values.
 */
export function scanUpstreamList(
  s: string,
  a: number,
  b: number,
  each: (a: number, b: number, k: number) => void,
): number {
  let p = a;
  let k = 0;
  for (;;) {
    const space = s.indexOf(' ', p);
    if (space < 0 || space >= b) {
      each(p, b, k);
      return k + 1;
    }
    const comma = s.charCodeAt(space - 1) === 44;
    each(p, comma ? space - 1 : space, k++);
    if (!comma && s.charCodeAt(space + 1) === 58 && s.charCodeAt(space + 2) === 32) p = space + 3;
    else p = space + 1;
  }
}

/** Splits an upstream list into its values, in attempt order (the last is the final attempt). */
export function parseUpstreamList(text: string): string[] {
  const out: string[] = [];
  if (text === '') return out;
  scanUpstreamList(text, 0, text.length, (a, b) => out.push(text.slice(a, b)));
  return out;
}

/**
 * Reads nginx seconds with millisecond resolution ("0.002") at `[a, b)` as whole milliseconds; -1 for
 * "-" or anything else that is not a plain decimal.
 */
export function readMillis(s: string, a: number, b: number): number {
  // nginx writes "S.mmm": read that shape without the general loop.
  if (b - a === 5 && s.charCodeAt(a + 1) === 46) {
    const x = s.charCodeAt(a) - 48;
    const y = s.charCodeAt(a + 2) - 48;
    const z = s.charCodeAt(a + 3) - 48;
    const w = s.charCodeAt(a + 4) - 48;
    if (x >= 0 && x <= 9 && y >= 0 && y <= 9 && z >= 0 && z <= 9 && w >= 0 && w <= 9)
      return x * 1000 + y * 100 + z * 10 + w;
  }
  let ms = 0;
  let i = a;
  for (; i < b; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    ms = ms * 10 + d;
  }
  if (i === a) return -1;
  ms *= 1000;
  if (i < b) {
    if (s.charCodeAt(i) !== 46) return -1;
    let scale = 100;
    for (i++; i < b; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return -1;
      ms += d * scale;
      scale /= 10;
    }
  }
  return Math.round(ms);
}

/** Reads a three-digit status at `[a, b)`; -1 for "-" or anything else. */
export function readStatus(s: string, a: number, b: number): number {
  if (b - a !== 3) return -1;
  const x = s.charCodeAt(a) - 48;
  const y = s.charCodeAt(a + 1) - 48;
  const z = s.charCodeAt(a + 2) - 48;
  if (x < 0 || x > 9 || y < 0 || y > 9 || z < 0 || z > 9) return -1;
  return x * 100 + y * 10 + z;
}
