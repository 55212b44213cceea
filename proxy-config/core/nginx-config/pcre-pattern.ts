/**
 * Just enough of a PCRE parser to say what a regex in an nginx config can match: which characters a
 * capture group can hold, what it starts with, whether the pattern is anchored. Syntax it does not
 * model (backreferences, recursion, branch reset, conditionals) makes `parsePcre` return undefined,
 * and the rules that ask then stay silent rather than guess.
 */

/** A set of single characters. `only` is set when the set is exactly one character. */
export interface CharSet {
  has(ch: string): boolean;
  only?: string;
}

export type PcreNode =
  | { type: 'chars'; set: CharSet; source: string }
  | { type: 'seq'; items: PcreNode[] }
  | { type: 'alt'; options: PcreNode[] }
  | { type: 'group'; body: PcreNode; index?: number; name?: string; start: number }
  | { type: 'repeat'; body: PcreNode; min: number; max: number }
  | { type: 'anchor'; at: 'start' | 'end' }
  /** A zero-width assertion other than ^/$ (\b, lookarounds): it matches no character. */
  | { type: 'assert' };

export type PcreGroup = Extract<PcreNode, { type: 'group' }>;

export interface PcrePattern {
  source: string;
  root: PcreNode;
  /** Capture groups by number ($1...) and by lower-cased name ($name for `(?<name>...)`). */
  groups: Map<number, PcreGroup>;
  named: Map<string, PcreGroup>;
}

const ANY_BUT_NEWLINE: CharSet = { has: (ch) => ch !== '\n' };
const DIGIT = (ch: string) => ch >= '0' && ch <= '9';
const WORD = (ch: string) => /^[A-Za-z0-9_]$/.test(ch);
const SPACE = (ch: string) => ' \t\n\r\f\v'.includes(ch);
const HSPACE = (ch: string) => ch === ' ' || ch === '\t';
const VSPACE = (ch: string) => '\n\r\f\v'.includes(ch);

const POSIX: Record<string, (ch: string) => boolean> = {
  alpha: (ch) => /^[A-Za-z]$/.test(ch),
  digit: DIGIT,
  alnum: (ch) => /^[A-Za-z0-9]$/.test(ch),
  upper: (ch) => /^[A-Z]$/.test(ch),
  lower: (ch) => /^[a-z]$/.test(ch),
  space: SPACE,
  blank: HSPACE,
  punct: (ch) => /^[!-/:-@[-`{-~]$/.test(ch),
  xdigit: (ch) => /^[0-9A-Fa-f]$/.test(ch),
  word: WORD,
  cntrl: (ch) => ch < ' ' || ch === '\x7f',
  print: (ch) => ch >= ' ' && ch !== '\x7f',
  graph: (ch) => ch > ' ' && ch !== '\x7f',
  ascii: (ch) => ch <= '\x7f',
};

class Unsupported extends Error {}

function literal(ch: string, caseless: boolean): CharSet {
  if (!caseless || ch.toLowerCase() === ch.toUpperCase()) return { has: (c) => c === ch, only: ch };
  const lower = ch.toLowerCase();
  return { has: (c) => c.toLowerCase() === lower };
}

/** The class an escape letter names (\d, \W, ...), or undefined when it is not a class escape. */
function classEscape(letter: string): ((ch: string) => boolean) | undefined {
  const classes: Record<string, (ch: string) => boolean> = {
    d: DIGIT,
    w: WORD,
    s: SPACE,
    h: HSPACE,
    v: VSPACE,
  };
  const base = classes[letter.toLowerCase()];
  if (!base) return undefined;
  return letter === letter.toLowerCase() ? base : (ch) => !base(ch);
}

/** A character escape (\n, \x41, \.), returning the character and the index after it. */
function charEscape(src: string, i: number): { ch: string; next: number } {
  const letter = src[i] ?? '';
  const simple: Record<string, string> = { n: '\n', r: '\r', t: '\t', f: '\f', e: '\x1b', a: '\x07' };
  if (letter in simple) return { ch: simple[letter] as string, next: i + 1 };
  if (letter === 'x') {
    if (src[i + 1] === '{') {
      const close = src.indexOf('}', i + 2);
      if (close === -1) throw new Unsupported();
      return { ch: String.fromCodePoint(parseInt(src.slice(i + 2, close), 16) || 0), next: close + 1 };
    }
    const hex = /^[0-9A-Fa-f]{0,2}/.exec(src.slice(i + 1))?.[0] ?? '';
    return { ch: String.fromCharCode(parseInt(hex || '0', 16)), next: i + 1 + hex.length };
  }
  if (letter === '0') {
    const oct = /^[0-7]{0,2}/.exec(src.slice(i + 1))?.[0] ?? '';
    return { ch: String.fromCharCode(parseInt(`0${oct}`, 8)), next: i + 1 + oct.length };
  }
  if (letter === 'c') return { ch: String.fromCharCode((src.charCodeAt(i + 1) || 64) ^ 64), next: i + 2 };
  if (/[1-9gkRXpPQEKNCu]/.test(letter)) throw new Unsupported();
  return { ch: letter, next: i + 1 };
}

class Parser {
  private i = 0;
  private groupCount = 0;
  readonly groups = new Map<number, PcreGroup>();
  readonly named = new Map<string, PcreGroup>();

  constructor(
    private readonly src: string,
    private caseless: boolean,
  ) {}

  parse(): PcreNode {
    const node = this.alternation();
    if (this.i < this.src.length) throw new Unsupported();
    return node;
  }

  private alternation(): PcreNode {
    const options = [this.sequence()];
    while (this.src[this.i] === '|') {
      this.i++;
      options.push(this.sequence());
    }
    return options.length === 1 ? (options[0] as PcreNode) : { type: 'alt', options };
  }

  private sequence(): PcreNode {
    const items: PcreNode[] = [];
    const saved = this.caseless;
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const atom = this.atom();
      if (atom) items.push(this.quantified(atom));
    }
    this.caseless = saved;
    return { type: 'seq', items };
  }

  private quantified(atom: PcreNode): PcreNode {
    const src = this.src;
    let min: number;
    let max: number;
    const ch = src[this.i];
    if (ch === '*') [min, max] = [0, Infinity];
    else if (ch === '+') [min, max] = [1, Infinity];
    else if (ch === '?') [min, max] = [0, 1];
    else if (ch === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(this.i));
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (src[this.i] === '?' || src[this.i] === '+') this.i++;
    if (atom.type === 'anchor' || atom.type === 'assert') return atom;
    return this.quantified({ type: 'repeat', body: atom, min, max });
  }

  /** One atom; null for things that match nothing and leave no trace (comments, inline flags). */
  private atom(): PcreNode | null {
    const src = this.src;
    const start = this.i;
    const ch = src[this.i] as string;
    this.i++;
    if (ch === '^') return { type: 'anchor', at: 'start' };
    if (ch === '$') return { type: 'anchor', at: 'end' };
    if (ch === '.') return { type: 'chars', set: ANY_BUT_NEWLINE, source: '.' };
    if (ch === '[') return this.charClass(start);
    if (ch === '(') return this.group(start);
    if (ch === '\\') return this.escape(start);
    if (ch === '*' || ch === '+' || ch === '?') throw new Unsupported();
    return { type: 'chars', set: literal(ch, this.caseless), source: ch };
  }

  private escape(start: number): PcreNode | null {
    const letter = this.src[this.i] ?? '';
    if (letter === 'A' || letter === 'G') {
      this.i++;
      return { type: 'anchor', at: 'start' };
    }
    if (letter === 'z' || letter === 'Z') {
      this.i++;
      return { type: 'anchor', at: 'end' };
    }
    if (letter === 'b' || letter === 'B') {
      this.i++;
      return { type: 'assert' };
    }
    if (letter === 'Q') {
      const end = this.src.indexOf('\\E', this.i + 1);
      const text = this.src.slice(this.i + 1, end === -1 ? undefined : end);
      this.i = end === -1 ? this.src.length : end + 2;
      return {
        type: 'seq',
        items: [...text].map((c) => ({ type: 'chars', set: literal(c, this.caseless), source: c })),
      };
    }
    const cls = classEscape(letter);
    if (cls) {
      this.i++;
      return { type: 'chars', set: { has: cls }, source: this.src.slice(start, this.i) };
    }
    if (letter === 'N') {
      this.i++;
      return { type: 'chars', set: ANY_BUT_NEWLINE, source: '\\N' };
    }
    const { ch, next } = charEscape(this.src, this.i);
    this.i = next;
    return { type: 'chars', set: literal(ch, this.caseless), source: this.src.slice(start, this.i) };
  }

  private charClass(start: number): PcreNode {
    const src = this.src;
    const negated = src[this.i] === '^';
    if (negated) this.i++;
    const tests: Array<(ch: string) => boolean> = [];
    let singles = '';
    let first = true;
    while (this.i < src.length && (src[this.i] !== ']' || first)) {
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(src.slice(this.i));
      if (posix) {
        const test = POSIX[posix[2] as string];
        if (!test) throw new Unsupported();
        tests.push(posix[1] ? (c) => !test(c) : test);
        this.i += posix[0].length;
        continue;
      }
      let low: string;
      if (src[this.i] === '\\') {
        const cls = classEscape(src[this.i + 1] ?? '');
        if (cls) {
          tests.push(cls);
          this.i += 2;
          continue;
        }
        const { ch, next } = charEscape(src, this.i + 1);
        low = ch;
        this.i = next;
      } else {
        low = src[this.i] as string;
        this.i++;
      }
      if (src[this.i] === '-' && src[this.i + 1] !== ']' && this.i + 1 < src.length) {
        this.i++;
        let high: string;
        if (src[this.i] === '\\') {
          const { ch, next } = charEscape(src, this.i + 1);
          high = ch;
          this.i = next;
        } else {
          high = src[this.i] as string;
          this.i++;
        }
        const [lo, hi] = [low, high];
        tests.push((c) => c >= lo && c <= hi);
      } else singles += low;
    }
    if (src[this.i] !== ']') throw new Unsupported();
    this.i++;
    const caseless = this.caseless;
    const inClass = (c: string) =>
      singles.includes(c) ||
      tests.some((t) => t(c)) ||
      (caseless && c.toLowerCase() !== c.toUpperCase()
        ? singles.includes(c.toLowerCase()) ||
          singles.includes(c.toUpperCase()) ||
          tests.some((t) => t(c.toLowerCase()) || t(c.toUpperCase()))
        : false);
    const set: CharSet = { has: negated ? (c) => !inClass(c) : inClass };
    if (!negated && tests.length === 0 && singles.length === 1 && !caseless) set.only = singles;
    return { type: 'chars', set, source: src.slice(start, this.i) };
  }

  private group(start: number): PcreNode | null {
    const src = this.src;
    let index: number | undefined;
    let name: string | undefined;
    let zeroWidth = false;
    const saved = this.caseless;
    if (src[this.i] === '?') {
      const rest = src.slice(this.i + 1);
      const named = /^(?:P?<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')/.exec(rest);
      if (named) {
        name = named[1] ?? named[2];
        index = ++this.groupCount;
        this.i += 1 + named[0].length;
      } else if (rest.startsWith('#')) {
        const close = src.indexOf(')', this.i);
        if (close === -1) throw new Unsupported();
        this.i = close + 1;
        return null;
      } else if (/^(?:[=!]|<[=!])/.test(rest)) {
        zeroWidth = true;
        this.i += rest.startsWith('<') ? 3 : 2;
      } else if (rest.startsWith(':') || rest.startsWith('>')) this.i += 2;
      else {
        const flags = /^([imsxJU]*)(?:-([imsxJU]*))?([:)])/.exec(rest);
        if (!flags) throw new Unsupported();
        const on = flags[1] ?? '';
        const off = flags[2] ?? '';
        const caseless = on.includes('i') ? true : off.includes('i') ? false : this.caseless;
        this.i += 1 + flags[0].length;
        if (flags[3] === ')') {
          // (?i) applies to the rest of the enclosing group: sequence() restores it at the end.
          this.caseless = caseless;
          return null;
        }
        this.caseless = caseless;
      }
    } else index = ++this.groupCount;
    const body = this.alternation();
    if (src[this.i] !== ')') throw new Unsupported();
    this.i++;
    this.caseless = saved;
    if (zeroWidth) return { type: 'assert' };
    const node: PcreGroup = { type: 'group', body, index, name, start };
    if (index !== undefined) this.groups.set(index, node);
    // nginx turns named groups into variables, whose names are case-insensitive.
    if (name !== undefined) this.named.set(name.toLowerCase(), node);
    return node;
  }
}

/** Parses a PCRE pattern as nginx compiles it (no DOTALL: `.` stops at a line feed). */
export function parsePcre(source: string, caseless = false): PcrePattern | undefined {
  try {
    const parser = new Parser(source, caseless);
    const root = parser.parse();
    return { source, root, groups: parser.groups, named: parser.named };
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/** True when the node can match the empty string. */
export function nullable(node: PcreNode): boolean {
  switch (node.type) {
    case 'chars':
      return false;
    case 'seq':
      return node.items.every(nullable);
    case 'alt':
      return node.options.some(nullable);
    case 'group':
      return nullable(node.body);
    case 'repeat':
      return node.min === 0 || nullable(node.body);
    default:
      return true;
  }
}

/** True when some string the node matches contains `ch`. */
export function canHold(node: PcreNode, ch: string): boolean {
  switch (node.type) {
    case 'chars':
      return node.set.has(ch);
    case 'seq':
      return node.items.some((item) => canHold(item, ch));
    case 'alt':
      return node.options.some((option) => canHold(option, ch));
    case 'group':
      return canHold(node.body, ch);
    case 'repeat':
      return node.max > 0 && canHold(node.body, ch);
    default:
      return false;
  }
}

/** The sets the first character of a match can come from. */
export function firstSets(node: PcreNode): CharSet[] {
  switch (node.type) {
    case 'chars':
      return [node.set];
    case 'seq': {
      const out: CharSet[] = [];
      for (const item of node.items) {
        out.push(...firstSets(item));
        if (!nullable(item)) break;
      }
      return out;
    }
    case 'alt':
      return node.options.flatMap(firstSets);
    case 'group':
      return firstSets(node.body);
    case 'repeat':
      return node.max > 0 ? firstSets(node.body) : [];
    default:
      return [];
  }
}

/** The sets the last character of a match can come from. */
export function lastSets(node: PcreNode): CharSet[] {
  switch (node.type) {
    case 'chars':
      return [node.set];
    case 'seq': {
      const out: CharSet[] = [];
      for (const item of [...node.items].reverse()) {
        out.push(...lastSets(item));
        if (!nullable(item)) break;
      }
      return out;
    }
    case 'alt':
      return node.options.flatMap(lastSets);
    case 'group':
      return lastSets(node.body);
    case 'repeat':
      return node.max > 0 ? lastSets(node.body) : [];
    default:
      return [];
  }
}

/** True when some match starts with `ch`. */
export function canStartWith(node: PcreNode, ch: string): boolean {
  return firstSets(node).some((set) => set.has(ch));
}

/** True when every match is non-empty and starts with `ch`. */
export function mustStartWith(node: PcreNode, ch: string): boolean {
  return !nullable(node) && firstSets(node).every((set) => set.only === ch);
}

function topAlternatives(pattern: PcrePattern): PcreNode[] {
  return pattern.root.type === 'alt' ? pattern.root.options : [pattern.root];
}

/** Every alternative at the top level begins with `^` (or `\A`). */
export function anchoredAtStart(pattern: PcrePattern): boolean {
  return topAlternatives(pattern).every((option) => {
    const first = option.type === 'seq' ? option.items[0] : option;
    return first?.type === 'anchor' && first.at === 'start';
  });
}

/** Every alternative at the top level ends with `$` (or `\z`). */
export function anchoredAtEnd(pattern: PcrePattern): boolean {
  return topAlternatives(pattern).every((option) => {
    const last = option.type === 'seq' ? option.items.at(-1) : option;
    return last?.type === 'anchor' && last.at === 'end';
  });
}
