import { parseLogFormat, type LogEscape, type LogFormatParts } from './parse-log-format.js';

/**
 * Finds where each variable of one line sits. `s` is a byte string holding many lines; the line is
 * `[start, end)`. On a match, `pos[2i]..pos[2i+1]` is variable i's raw (still escaped) value.
 */
export type LogLineMatcher = (s: string, start: number, end: number, pos: Int32Array) => boolean;

/** A log_format compiled into a specialised matcher. */
export interface CompiledLogFormat extends LogFormatParts {
  source: string;
  /** Variable name → its index in `variables` (first occurrence). */
  slots: Record<string, number>;
  /** Creates a matcher with its own scan memo; call `reset()` whenever the scanned string changes. */
  createMatcher(): { match: LogLineMatcher; reset(): void };
  /** A sticky regex capturing the named variables (see `compileLinePattern`). */
  createPattern(wanted: readonly string[]): LinePattern;
}

/**
 * A sticky regex for one line of the format. Where it matches a whole line, every value is where the
 * matcher would put it; where it does not, the matcher decides (the regex only refuses, never differs).
 */
export interface LinePattern {
  regex: RegExp;
  /** Variable → capture group; a time variable is captured as minute, seconds and zone (3 groups). */
  groups: Record<string, number>;
}

/**
 * Formats compiled so far. One run compiles its format in several places (detection, the filter, the
 * reader); the generated matcher's compile is the larger part of a short run's work. The compiled
 * format is never changed by its users, so one copy serves them all (a process meets a handful).
 */
const compiled = new Map<string, CompiledLogFormat>();

/** Compiles an nginx log_format into a matcher built for that format (indexOf over its literals, no regex). */
export function compileLogFormat(format: string, escape: LogEscape = 'default'): CompiledLogFormat {
  const key = `${escape}\n${format}`;
  let done = compiled.get(key);
  if (done === undefined) {
    done = compileOnce(format, escape);
    compiled.set(key, done);
  }
  return done;
}

function compileOnce(format: string, escape: LogEscape): CompiledLogFormat {
  const parts = parseLogFormat(format, escape);
  const slots: Record<string, number> = {};
  parts.variables.forEach((name, i) => {
    if (slots[name] === undefined) slots[name] = i;
  });
  const factory = buildMatcherFactory(parts);
  return {
    ...parts,
    source: format,
    slots,
    createMatcher: factory,
    createPattern: (wanted) => compileLinePattern(parts, wanted),
  };
}

/** Characters of the minute prefix of a time value ("21/Nov/2026:10:00", "2026-11-21T10:00"). */
const MINUTE_PREFIX: Record<string, number> = { time_local: 17, time_iso8601: 16 };

const escapeRegex = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/**
 * Builds the fast path of a format: one irregexp-compiled regex per line instead of one indexOf per
 * literal. Each value is `[^c\n]*` where `c` is the first character of the literal after it, so a match
 * ends every value at the first occurrence of the next literal, exactly as the matcher does; a value
 * holding that character (an escaped quote in escape=json, say) makes the regex fail and the line goes
 * to the matcher. Fixed-width variables keep their width. Only the `wanted` variables are captured.
 */
export function compileLinePattern(parts: LogFormatParts, wanted: readonly string[]): LinePattern {
  const { literals, variables, escape } = parts;
  const groups: Record<string, number> = {};
  // escape=json: a quote after a backslash is not the end of a value, so values with one go to the matcher.
  const json = escape === 'json';
  if (json && literals.some((literal) => literal.includes('\\'))) return { regex: /(?!)/y, groups };
  const also = json ? '\\\\' : '';
  let group = 1;
  let source = escapeRegex(literals[0]!);
  variables.forEach((name, i) => {
    const next = literals[i + 1]!;
    const fixed = FIXED_LENGTH[name];
    const capture = wanted.includes(name) && groups[name] === undefined;
    const minute = MINUTE_PREFIX[name];
    if (capture && minute !== undefined) {
      // Minute, ":SS", zone: consecutive lines share the minute, so it is compared, not parsed.
      source += `([^\\n]{${minute}}):([0-9]{2})([^\\n]{${fixed! - minute - 3}})`;
      groups[name] = group;
      group += 3;
    } else {
      const stop = next === '' ? '' : escapeRegex(next[0]!);
      const value = fixed !== undefined ? `[^\\n]{${fixed}}` : `[^${stop}${also}\\n]*`;
      source += capture ? `(${value})` : value;
      if (capture) groups[name] = group++;
    }
    source += escapeRegex(next);
  });
  return { regex: new RegExp(`${source}(?=\\n|$)`, 'y'), groups };
}

/** True when the quote at `q` is preceded by an odd number of backslashes (escape=json's `\"`). */
function isEscapedQuote(s: string, q: number): boolean {
  let n = 0;
  while (q - n - 1 >= 0 && s.charCodeAt(q - n - 1) === 92) n++;
  return (n & 1) === 1;
}

/** Variables nginx always writes at one width. */
export const FIXED_LENGTH: Record<string, number> = { time_local: 26, time_iso8601: 25, status: 3 };
/** Variables nginx always writes as digits and dots. */
const UPSTREAM_NUMBERS = new Set([
  'upstream_status',
  'upstream_connect_time',
  'upstream_header_time',
  'upstream_response_time',
]);
const NUMERIC = new Set([
  'request_time',
  'body_bytes_sent',
  'bytes_sent',
  'msec',
  'request_length',
  'connection',
]);

function buildMatcherFactory(parts: LogFormatParts): () => { match: LogLineMatcher; reset(): void } {
  const { literals, variables, escape } = parts;
  const n = variables.length;
  const code: string[] = ['let p = start, q = 0;'];
  const first = literals[0]!;
  if (first) code.push(`if (!s.startsWith(${JSON.stringify(first)}, p)) return false; p += ${first.length};`);
  for (let i = 0; i < n; i++) {
    const lit = literals[i + 1]!;
    const last = i === n - 1;
    if (last && lit === '') {
      code.push(`P[${2 * i}] = p; P[${2 * i + 1}] = end; return true;`);
      break;
    }
    // The first occurrence of the next literal ends the value. Positions only grow within one input
    // string, so when a search ran past the line, N[i] remembers where it landed: a run of lines missing
    // that literal then costs one scan, not one scan of the rest of the string per line.
    const L = JSON.stringify(lit);
    let find = `if (p <= N[${i}]) q = N[${i}]; else { q = s.indexOf(${L}, p); if (q < 0) N[${i}] = Infinity; else if (q >= end) N[${i}] = q; }`;
    const name = variables[i]!;
    const fixed = FIXED_LENGTH[name];
    const startsNumeric = /^[0-9.]/.test(lit);
    if (fixed !== undefined) {
      // nginx writes these at a fixed width: check the literal where it must be instead of searching.
      find = `q = p + ${fixed}; if (!s.startsWith(${L}, q)) return false;`;
    } else if (UPSTREAM_NUMBERS.has(name) && !/^[0-9., :-]/.test(lit)) {
      // Lists of numbers or "-" (", " and " : " between them) cannot hold the literal either.
      find = `q = p; while (q < end) { const c = s.charCodeAt(q); if ((c < 48 || c > 58) && c !== 46 && c !== 44 && c !== 32 && c !== 45) break; q++; } if (!s.startsWith(${L}, q)) { ${find} }`;
    } else if (NUMERIC.has(name) && !startsNumeric) {
      // Digits and dots cannot hold the literal, so it is found right after them (else search as usual).
      find = `q = p; while (q < end) { const c = s.charCodeAt(q); if ((c < 48 || c > 57) && c !== 46) break; q++; } if (!s.startsWith(${L}, q)) { ${find} }`;
    }
    code.push(find);
    if (escape === 'json' && lit.startsWith('"')) {
      code.push(
        `while (q >= 0 && q < end && esc(s, q)) { q = s.indexOf(${L}, q + 1); if (q < 0) N[${i}] = Infinity; else if (q >= end) N[${i}] = q; }`,
      );
    }
    code.push(`if (q < 0 || q + ${lit.length} > end) return false;`);
    code.push(`P[${2 * i}] = p; P[${2 * i + 1}] = q; p = q + ${lit.length};`);
    if (last) code.push('return p === end;');
  }
  const make = new Function(
    'esc',
    'N',
    `return function matchLine(s, start, end, P) {\n${code.join('\n')}\n};`,
  ) as (esc: typeof isEscapedQuote, n: Float64Array) => LogLineMatcher;
  return () => {
    const next = new Float64Array(n).fill(-1);
    return { match: make(isEscapedQuote, next), reset: () => next.fill(-1) };
  };
}
