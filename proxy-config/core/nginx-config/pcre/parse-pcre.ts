/**
 * A parser for the PCRE2 patterns nginx compiles (location ~, if ~, map ~, rewrite, server_name ~,
 * valid_referers ~). It refuses what pcre2_compile() refuses in practice (unbalanced parentheses,
 * unterminated classes, quantifiers with nothing to repeat, ranges and {n,m} out of order, unknown
 * letter escapes and group syntax, duplicate group names) and otherwise yields a tree precise enough
 * to count capture groups, see anchors, look for backtracking blow-ups and say which characters a
 * capture can hold (pcre-analysis.ts). Constructs that the tree only stands in for (backreferences,
 * recursion, conditionals, branch reset, \p, \R, verbs) mark the result `approximate`, and the
 * rules that ask what a group can hold then stay silent rather than guess. JavaScript's RegExp is
 * no judge here: it rejects PCRE syntax nginx accepts (possessive quantifiers, atomic groups,
 * (?P<name>), \Q…\E, [[:alpha:]]).
 */

/** Which characters one position of a pattern matches. */
export type CharTest = (ch: string) => boolean;

/**
 * One character position: `source` is how the pattern wrote it (an unescaped `.` is `.`), `only`
 * the one character it matches when it matches exactly one.
 */
export interface CharNode {
  kind: 'char';
  test: CharTest;
  source: string;
  only?: string;
}

/** A group; `index` for a capturing one ($1…), `name` for (?<name>…), `start` its offset. */
export interface GroupNode {
  kind: 'group';
  capture: boolean;
  body: RegexNode;
  start: number;
  index?: number;
  name?: string;
}

export type RegexNode =
  | { kind: 'seq'; items: RegexNode[] }
  | { kind: 'alt'; branches: RegexNode[] }
  | GroupNode
  | { kind: 'repeat'; min: number; max: number; body: RegexNode }
  | CharNode
  /** ^, \A, \G are 'start'; $, \z, \Z 'end'; \b and lookarounds 'other'. All match no character. */
  | { kind: 'assert'; what: 'start' | 'end' | 'other' };

export interface ParsedRegex {
  root: RegexNode;
  /** Number of capturing groups, named ones included ($1…$N). */
  groups: number;
  /** Capturing groups by number, and by lower-cased name (nginx variables are case-insensitive). */
  captures: Map<number, GroupNode>;
  named: Map<string, GroupNode>;
  /** Set when part of the tree stands in for what it cannot model (a backreference is "anything"). */
  approximate: boolean;
}

export type PcreResult = { ok: true; regex: ParsedRegex } | { ok: false; error: string; offset: number };

/** PCRE2's limit for {n,m}. */
const MAX_REPEAT = 65535;

const ANY: CharTest = () => true;
const not =
  (test: CharTest): CharTest =>
  (ch) =>
    !test(ch);
const DIGIT: CharTest = (ch) => ch >= '0' && ch <= '9';
const WORD: CharTest = (ch) => /^\w$/.test(ch);
const SPACE: CharTest = (ch) => /^\s$/.test(ch);
const HSPACE: CharTest = (ch) => ch === ' ' || ch === '\t' || ch === '\u00a0';
const VSPACE: CharTest = (ch) => '\n\v\f\r\u0085\u2028\u2029'.includes(ch);
const literal =
  (c: string): CharTest =>
  (ch) =>
    ch === c;

/** POSIX classes PCRE accepts inside brackets ([[:alpha:]]). */
const POSIX: Record<string, CharTest> = {
  alnum: (ch) => /^[a-zA-Z0-9]$/.test(ch),
  alpha: (ch) => /^[a-zA-Z]$/.test(ch),
  ascii: (ch) => ch.charCodeAt(0) < 128,
  blank: HSPACE,
  cntrl: (ch) => ch.charCodeAt(0) < 32 || ch.charCodeAt(0) === 127,
  digit: DIGIT,
  graph: (ch) => ch.charCodeAt(0) > 32 && ch.charCodeAt(0) < 127,
  lower: (ch) => /^[a-z]$/.test(ch),
  print: (ch) => ch.charCodeAt(0) >= 32 && ch.charCodeAt(0) < 127,
  punct: (ch) => /^[!-/:-@[-`{-~]$/.test(ch),
  space: SPACE,
  upper: (ch) => /^[A-Z]$/.test(ch),
  word: WORD,
  xdigit: (ch) => /^[0-9a-fA-F]$/.test(ch),
};

/** Letters PCRE2 knows after a backslash; any other letter is "unrecognized character follows \". */
const KNOWN_LETTER_ESCAPES = new Set('aAbBcCdDeEfgGhHkKnNopPQrRsStvVwWxXzZ');

const CONTROL_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', e: '\x1b', a: '\x07' };

/** \d, \W and the other escapes that name a class of characters. */
const CLASS_ESCAPES: Record<string, CharTest> = {
  d: DIGIT,
  D: not(DIGIT),
  w: WORD,
  W: not(WORD),
  s: SPACE,
  S: not(SPACE),
  h: HSPACE,
  H: not(HSPACE),
  v: VSPACE,
  V: not(VSPACE),
};

/** The one character a two-character escape such as `\.` or `\n` stands for, if it is one. */
function singleCharEscape(escape: string): string | undefined {
  const ch = escape[1];
  if (escape.length !== 2 || ch === undefined) return undefined;
  if (!/[A-Za-z0-9]/.test(ch)) return ch;
  return CONTROL_ESCAPES[ch];
}

class PcreError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** Parses a PCRE2 pattern; `caseless` for `~*` (only widens what each position matches). */
export function parsePcre(pattern: string, caseless = false): PcreResult {
  let pos = 0;
  let groups = 0;
  const names = new Set<string>();
  let allowDuplicateNames = false;
  /** Numbered back references and conditions, checked against the group count at the end. */
  const references: Array<{ group: number; at: number }> = [];
  const fail = (message: string, at = pos): never => {
    throw new PcreError(message, at);
  };
  const captures = new Map<number, GroupNode>();
  const byName = new Map<string, GroupNode>();
  let approximate = false;
  /** A node that only stands in for what the construct matches. */
  const standIn = <T>(node: T): T => {
    approximate = true;
    return node;
  };
  const fold = (test: CharTest): CharTest =>
    caseless ? (ch) => test(ch) || test(ch.toLowerCase()) || test(ch.toUpperCase()) : test;
  /** One literal character (its `source` is filled in by whoever knows how it was written). */
  const lit = (c: string): CharNode => ({
    kind: 'char',
    source: '',
    test: fold(literal(c)),
    only: caseless && c.toLowerCase() !== c.toUpperCase() ? undefined : c,
  });

  /** An escape after `\` (pos at the letter); returns a char test, an assertion or null for \Q. */
  function escape(inClass: boolean): RegexNode | 'quote' {
    const c = pattern[pos];
    if (c === undefined) fail('\\ at end of pattern', pos - 1);
    pos++;
    const ch = c as string;
    const named = CLASS_ESCAPES[ch];
    if (named) return { kind: 'char', source: '', test: named };
    const control = CONTROL_ESCAPES[ch];
    if (control !== undefined) return lit(control);
    switch (ch) {
      case 'N':
        return { kind: 'char', source: '', test: (x) => x !== '\n' };
      case 'R':
      case 'X':
      case 'C':
        return standIn({ kind: 'char', source: '', test: ANY });
      case 'Q':
        return 'quote';
      case 'E':
        return { kind: 'seq', items: [] };
      case 'c':
        if (pos >= pattern.length) fail('\\c at end of pattern');
        pos++;
        // \cX is the control character X ^ 0x40 (\cA is \x01).
        return lit(
          String.fromCharCode(((pattern[pos - 1] as string).toUpperCase().charCodeAt(0) ^ 0x40) & 0x7f),
        );
      case 'x': {
        const braced = /^\{([0-9a-fA-F]*)\}/.exec(pattern.slice(pos));
        if (braced) {
          const code = parseInt(braced[1] || '0', 16);
          // nginx compiles without PCRE2_UTF unless the pattern asks for it with (*UTF).
          if (code > 0xff && !pattern.startsWith('(*UTF'))
            fail('character code point value in \\x{} or \\o{} is too large');
          pos += braced[0].length;
          return lit(String.fromCodePoint(code));
        }
        const hex = /^[0-9a-fA-F]{0,2}/.exec(pattern.slice(pos))?.[0] ?? '';
        pos += hex.length;
        return lit(String.fromCharCode(parseInt(hex || '0', 16)));
      }
      case 'o': {
        const braced = /^\{([0-7]+)\}/.exec(pattern.slice(pos));
        if (!braced) fail('missing opening brace after \\o');
        pos += (braced as RegExpExecArray)[0].length;
        return standIn({ kind: 'char', source: '', test: ANY });
      }
      case 'p':
      case 'P': {
        const prop = /^(\{\^?[A-Za-z_ &]+\}|[A-Za-z])/.exec(pattern.slice(pos));
        if (!prop) fail('malformed \\p or \\P sequence');
        pos += (prop as RegExpExecArray)[0].length;
        return standIn({ kind: 'char', source: '', test: ANY });
      }
      case 'b':
      case 'B':
        if (inClass && ch === 'b') return lit('\b');
        if (inClass) fail(`escape sequence is invalid in character class`, pos - 2);
        return { kind: 'assert', what: 'other' };
      case 'G':
      case 'A':
        if (inClass) fail(`escape sequence is invalid in character class`, pos - 2);
        return { kind: 'assert', what: 'start' };
      case 'z':
      case 'Z':
        if (inClass) fail(`escape sequence is invalid in character class`, pos - 2);
        return { kind: 'assert', what: 'end' };
      case 'K':
        return standIn({ kind: 'assert', what: 'other' });
      case 'g':
      case 'k': {
        const ref = /^(\{[^}]+\}|<[^>]+>|'[^']+'|-?\d+)/.exec(pattern.slice(pos));
        if (!ref) fail(`\\${ch} is not followed by a group name or number`);
        pos += (ref as RegExpExecArray)[0].length;
        return standIn({
          kind: 'repeat',
          min: 0,
          max: Infinity,
          body: { kind: 'char', source: '', test: ANY },
        });
      }
      default:
        break;
    }
    if (/[1-9]/.test(ch) && !inClass) {
      const digits = /^\d*/.exec(pattern.slice(pos))?.[0] ?? '';
      pos += digits.length;
      references.push({ group: Number(ch + digits), at: pos });
      // A backreference: whatever the group matched, so anything of any length.
      return standIn({
        kind: 'repeat',
        min: 0,
        max: Infinity,
        body: { kind: 'char', source: '', test: ANY },
      });
    }
    if (ch === '0') {
      // \0 and up to two more octal digits: one character.
      const octal = /^[0-7]{0,2}/.exec(pattern.slice(pos))?.[0] ?? '';
      pos += octal.length;
      return lit(String.fromCharCode(parseInt(`0${octal}`, 8)));
    }
    if (/[1-7]/.test(ch)) {
      while (/[0-7]/.test(pattern[pos] ?? '')) pos++;
      return standIn({ kind: 'char', source: '', test: ANY });
    }
    if (/[A-Za-z]/.test(ch) && !KNOWN_LETTER_ESCAPES.has(ch))
      fail(`unrecognized character follows \\ (\\${ch})`, pos - 2);
    return lit(ch);
  }

  /** A bracketed class; pos just after `[`. */
  function charClass(): RegexNode {
    const start = pos - 1;
    let negate = false;
    if (pattern[pos] === '^') {
      negate = true;
      pos++;
    }
    const tests: CharTest[] = [];
    /** The character of each member that is a single character, for `only`. */
    const singles: Array<string | undefined> = [];
    let first = true;
    for (;;) {
      const c = pattern[pos];
      if (c === undefined) fail('missing terminating ] for character class', start);
      if (c === ']' && !first) {
        pos++;
        break;
      }
      first = false;
      if (c === '[' && pattern[pos + 1] === ':') {
        const posix = /^\[:(\^?)([a-z]+):\]/.exec(pattern.slice(pos));
        if (posix) {
          const test = POSIX[posix[2] as string];
          if (!test) fail(`unknown POSIX class name ${posix[2] ?? ''}`);
          tests.push(posix[1] ? not(test as CharTest) : (test as CharTest));
          singles.push(undefined);
          pos += posix[0].length;
          continue;
        }
      }
      // One class member: a character (possibly escaped), maybe the start of a range.
      let low: string;
      if (c === '\\') {
        const lowAt = pos;
        pos++;
        const escaped = escape(true);
        if (escaped === 'quote') {
          const end = pattern.indexOf('\\E', pos);
          const quoted = end === -1 ? pattern.slice(pos) : pattern.slice(pos, end);
          pos = end === -1 ? pattern.length : end + 2;
          for (const q of quoted) {
            tests.push(literal(q));
            singles.push(q);
          }
          continue;
        }
        if (escaped.kind !== 'char') continue;
        const single = singleCharEscape(pattern.slice(lowAt, pos));
        if (single === undefined) {
          tests.push(escaped.test);
          singles.push(escaped.only);
          continue;
        }
        low = single;
      } else {
        low = c as string;
        pos++;
      }
      if (pattern[pos] === '-' && pattern[pos + 1] !== ']' && pattern[pos + 1] !== undefined) {
        const highAt = pos + 1;
        let high = pattern[highAt] as string;
        let width = 1;
        if (high === '\\') {
          const next = pattern[highAt + 1] ?? '';
          if (/[dDwWsShHvV]/.test(next)) fail('invalid range in character class', highAt);
          high = singleCharEscape(`\\${next}`) ?? next;
          width = 2;
        } else if (high === '[' && pattern[highAt + 1] === ':') {
          fail('invalid range in character class', highAt);
        }
        if (high < low) fail('range out of order in character class', highAt);
        pos = highAt + width;
        const from = low;
        tests.push((ch) => ch >= from && ch <= high);
        singles.push(undefined);
        continue;
      }
      tests.push(literal(low));
      singles.push(low);
    }
    const member: CharTest = (ch) => tests.some((t) => t(ch));
    const folded = fold(member);
    // Under caseless matching a bracketed class is never taken as one character, even [.].
    const only = !negate && !caseless && singles.length === 1 ? singles[0] : undefined;
    return { kind: 'char', source: pattern.slice(start, pos), test: negate ? not(folded) : folded, only };
  }

  /** Group syntax after `(`; returns the group node, or a plain node for (?#…), flags, calls. */
  function group(): RegexNode {
    const start = pos - 1;
    const outer = caseless;
    /** The group's alternatives; an option setting inside ends with the group. */
    const body = (): RegexNode => {
      const inside = alternation(start);
      caseless = outer;
      return inside;
    };
    const capture = (name?: string): GroupNode => {
      const index = ++groups;
      const node: GroupNode = {
        kind: 'group',
        capture: true,
        start,
        index,
        name,
        body: { kind: 'seq', items: [] },
      };
      captures.set(index, node);
      if (name !== undefined) byName.set(name.toLowerCase(), node);
      node.body = body();
      return node;
    };
    const plain = (): GroupNode => ({ kind: 'group', capture: false, start, body: body() });
    if (pattern[pos] === '*') {
      // (*VERB) and (*VERB:NAME): control verbs, zero width.
      const verb = /^\*[A-Z_]*(:[^)]*)?(?=\))/.exec(pattern.slice(pos));
      if (!verb) fail('(*VERB) not recognized or malformed', start);
      pos += (verb as RegExpExecArray)[0].length;
      return standIn({ kind: 'assert', what: 'other' });
    }
    if (pattern[pos] !== '?') return capture();
    pos++;
    const rest = pattern.slice(pos);
    const take = (n: number) => {
      pos += n;
    };
    if (rest.startsWith('#')) {
      const end = pattern.indexOf(')', pos);
      if (end === -1) fail('missing ) after (?# comment', start);
      pos = end;
      return { kind: 'seq', items: [] };
    }
    if (rest.startsWith(':') || rest.startsWith('>')) {
      take(1);
      return plain();
    }
    if (rest.startsWith('|')) {
      // Branch reset: each alternative numbers its groups from the same point; not modelled.
      take(1);
      return standIn(plain());
    }
    if (rest.startsWith('=') || rest.startsWith('!') || rest.startsWith('<=') || rest.startsWith('<!')) {
      take(rest.startsWith('<') ? 2 : 1);
      body();
      return { kind: 'assert', what: 'other' };
    }
    const named = /^(?:P?<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')/.exec(rest);
    if (named) {
      const name = (named[1] ?? named[2]) as string;
      if (names.has(name) && !allowDuplicateNames)
        fail('two named subpatterns have the same name (PCRE2_DUPNAMES not set)', pos);
      names.add(name);
      take(named[0].length);
      return capture(name);
    }
    if (/^P?<|^'/.test(rest)) fail('subpattern name expected', pos);
    const call = /^(?:R|[+-]?\d+|&[A-Za-z_]\w*|P[=>][A-Za-z_]\w*)(?=\))/.exec(rest);
    if (call) {
      take(call[0].length);
      return standIn({
        kind: 'repeat',
        min: 0,
        max: Infinity,
        body: { kind: 'char', source: '', test: ANY },
      });
    }
    if (rest.startsWith('(')) {
      // (?(condition)yes|no): the condition is a group number, name, R or an assertion.
      const condition = /^\((?:(\d+)|<[^>]+>|'[^']+'|R\d*|R&\w+|DEFINE|\w+)\)/.exec(rest);
      if (condition?.[1]) references.push({ group: Number(condition[1]), at: pos });
      if (condition) take(condition[0].length);
      else {
        take(1);
        group();
        if (pattern[pos] !== ')') fail('malformed conditional group', start);
        take(1);
      }
      return standIn(plain());
    }
    const flags = /^\^?[imnsxJU]*(?:-[imnsxJU]*)?/.exec(rest)?.[0] ?? '';
    const after = pattern[pos + flags.length];
    if (after === ')' || after === ':') {
      const [on = '', off = ''] = flags.split('-');
      if (on.startsWith('^')) caseless = false;
      if (on.includes('i')) caseless = true;
      if (off.includes('i')) caseless = false;
      if (flags.includes('J')) allowDuplicateNames = true;
      take(flags.length);
      // (?i) alone holds to the end of the enclosing group, (?i:…) to the end of its own.
      if (after === ')') return { kind: 'seq', items: [] };
      take(1);
      return plain();
    }
    return fail('unrecognized character after (? or (?-', pos + flags.length);
  }

  /** Reads a {n}, {n,} or {n,m} quantifier at pos, or null when the brace is a literal. */
  function braces(consume = true): { min: number; max: number } | null {
    const m = /^\{\s*(\d*)\s*(,\s*(\d*)\s*)?\}/.exec(pattern.slice(pos));
    if (!m || (m[1] === '' && (m[3] ?? '') === '')) return null;
    if (m[1] === '' && m[2] === undefined) return null;
    const min = m[1] === '' ? 0 : Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT))
      fail('number too big in {} quantifier', pos);
    if (max < min) fail('numbers out of order in {} quantifier', pos);
    if (consume) pos += m[0].length;
    return { min, max };
  }

  function quantifier(): { min: number; max: number } | null {
    const c = pattern[pos];
    let q: { min: number; max: number } | null = null;
    if (c === '*') q = { min: 0, max: Infinity };
    else if (c === '+') q = { min: 1, max: Infinity };
    else if (c === '?') q = { min: 0, max: 1 };
    if (q) pos++;
    else if (c === '{') q = braces();
    if (q && (pattern[pos] === '?' || pattern[pos] === '+')) pos++; // lazy or possessive
    return q;
  }

  /** A sequence of items up to `|`, `)` or the end. */
  function sequence(): RegexNode {
    const items: RegexNode[] = [];
    let repeatable = false;
    while (pos < pattern.length) {
      const c = pattern[pos] as string;
      if (c === '|' || c === ')') break;
      const at = pos;
      if (c === '*' || c === '+' || c === '?' || (c === '{' && braces(false) !== null)) {
        if (!repeatable) fail('quantifier does not follow a repeatable item', at);
        const q = quantifier() as { min: number; max: number };
        items.push({ kind: 'repeat', ...q, body: items.pop() as RegexNode });
        repeatable = false;
        continue;
      }
      pos++;
      let node: RegexNode;
      if (c === '(') {
        node = group();
        if (pattern[pos] !== ')') fail('missing closing parenthesis', at);
        pos++;
      } else if (c === '[') node = charClass();
      else if (c === '\\') {
        const escaped = escape(false);
        if (escaped === 'quote') {
          const end = pattern.indexOf('\\E', pos);
          const quoted = end === -1 ? pattern.slice(pos) : pattern.slice(pos, end);
          pos = end === -1 ? pattern.length : end + 2;
          for (const q of quoted) items.push({ ...lit(q), source: q });
          repeatable = quoted.length > 0;
          continue;
        }
        node = escaped;
      } else if (c === '.') node = { kind: 'char', source: '.', test: (x) => x !== '\n' };
      else if (c === '^') node = { kind: 'assert', what: 'start' };
      else if (c === '$') node = { kind: 'assert', what: 'end' };
      else node = lit(c);
      if (node.kind === 'char' && node.source === '') node.source = pattern.slice(at, pos);
      if (node.kind === 'seq' && node.items.length === 0) {
        // A comment, an option setting or a stray \E: nothing to match and nothing to repeat.
        repeatable = false;
        continue;
      }
      items.push(node);
      // PCRE2 refuses a quantifier after ^, $, \b and friends, and after an empty item.
      repeatable =
        node.kind === 'char' ||
        node.kind === 'group' ||
        node.kind === 'repeat' ||
        (node.kind === 'assert' && c === '(');
    }
    return items.length === 1 ? (items[0] as RegexNode) : { kind: 'seq', items };
  }

  function alternation(openedAt: number): RegexNode {
    const branches = [sequence()];
    while (pattern[pos] === '|') {
      pos++;
      branches.push(sequence());
    }
    if (openedAt >= 0 && pattern[pos] !== ')') fail('missing closing parenthesis', openedAt);
    return branches.length === 1 ? (branches[0] as RegexNode) : { kind: 'alt', branches };
  }

  try {
    const root = alternation(-1);
    if (pos < pattern.length) fail('unmatched closing parenthesis', pos);
    const dangling = references.find((r) => r.group > groups);
    if (dangling) fail('reference to non-existent subpattern', dangling.at);
    return { ok: true, regex: { root, groups, captures, named: byName, approximate } };
  } catch (error) {
    if (error instanceof PcreError) return { ok: false, error: error.message, offset: error.offset };
    throw error;
  }
}
