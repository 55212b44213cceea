import type { LogEscape } from './parse-log-format.js';

// Log text is handled as "byte strings": each char holds one byte (latin1), so scanning never splits a
// UTF-8 sequence and decoding to real text happens only for the few values that are shown.

/** Turns a byte string (one char per byte) into text, decoding UTF-8. */
export function bytesToText(bytes: string): string {
  for (let i = 0; i < bytes.length; i++) {
    if (bytes.charCodeAt(i) > 0x7f) return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return bytes;
}

/** Turns ordinary text into a byte string (its UTF-8 bytes, one char each). */
export function textToBytes(text: string): string {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return Buffer.from(text, 'utf8').toString('latin1');
  }
  return text;
}

function hex(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87;
  return -1;
}

const JSON_SIMPLE: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  n: '\n',
  r: '\r',
  t: '\t',
  b: '\b',
  f: '\f',
};

/**
 * Undoes nginx's escaping of one variable value held as a byte string: `\xHH` for escape=default,
 * JSON string escapes for escape=json. Unknown escapes stay as written. Returns decoded text.
 */
export function decodeLogValue(raw: string, escape: LogEscape): string {
  if (escape === 'none' || raw.indexOf('\\') < 0) return bytesToText(raw);
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const slash = raw.indexOf('\\', i);
    if (slash < 0) {
      out += raw.slice(i);
      break;
    }
    out += raw.slice(i, slash);
    const next = raw[slash + 1];
    if (escape === 'default' && next === 'x') {
      const hi = hex(raw.charCodeAt(slash + 2));
      const lo = hex(raw.charCodeAt(slash + 3));
      if (hi >= 0 && lo >= 0) {
        out += String.fromCharCode(hi * 16 + lo);
        i = slash + 4;
        continue;
      }
    } else if (escape === 'json' && next !== undefined) {
      if (JSON_SIMPLE[next] !== undefined) {
        out += JSON_SIMPLE[next];
        i = slash + 2;
        continue;
      }
      if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(raw.slice(slash + 2, slash + 6))) {
        const code = parseInt(raw.slice(slash + 2, slash + 6), 16);
        // nginx writes \u00XX only for control bytes; wider code points are re-encoded as UTF-8 bytes.
        out += code < 0x100 ? String.fromCharCode(code) : textToBytes(String.fromCharCode(code));
        i = slash + 6;
        continue;
      }
    }
    out += '\\';
    i = slash + 1;
  }
  return bytesToText(out);
}
