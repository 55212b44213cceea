import type { ProxyopsError } from '../errors.js';
import { ENTRY_BLOCKS, isRawBlock, LINE_LEADING_DIRECTIVES } from './known-directives.js';
import { missingSemicolon, nginxSyntaxError, runOnError } from './nginx-config-error.js';
import { runOnRefused } from './run-on-statement.js';
import { scanLuaBlock } from './scan-lua-block.js';
import { ANNOTATION_PREFIX, type NginxDirective } from './types.js';

interface Word {
  value: string;
  line: number;
}

type Statement =
  | { kind: 'directive'; words: Word[]; end: ';' | '{'; runOn: number | undefined }
  | { kind: 'close'; line: number }
  | { kind: 'eof'; words: Word[]; line: number }
  | { kind: 'annotation'; name: string; args: string[]; line: number };

interface OpenBlock {
  label: string;
  line: number;
  entries: boolean;
  depth: number;
}

/**
 * Deepest block nesting accepted. Real configs stay under ten levels; the parser and every query
 * over its tree recurse once per level, so a config nested thousands deep would overflow the stack.
 */
export const MAX_BLOCK_DEPTH = 100;

const WHITESPACE = new Set([' ', '\t', '\r', '\n']);
const BYTE_ORDER_MARK = '\uFEFF';
const ANNOTATION = /^#\s*proxyops:\s*(\S+)(.*)$/;

/** NGINX_CONFIG_INVALID for a block opened deeper than MAX_BLOCK_DEPTH. */
export function tooDeep(file: string, line: number, name: string): ProxyopsError {
  return nginxSyntaxError(file, line, `"${name}" block nested more than ${MAX_BLOCK_DEPTH} levels deep`);
}

/**
 * Parses the text of one nginx config file into directives, tokenizing the way nginx does
 * (quotes and escapes, `#` comments, `$var`/`${var}`, raw Lua blocks). `include` is left as a
 * directive; read-nginx-config resolves it. Throws NGINX_CONFIG_INVALID with file:line.
 */
export function parseNginxConfig(text: string, file: string): NginxDirective[] {
  let pos = 0;
  let line = 1;
  const fail = (at: number, message: string) => nginxSyntaxError(file, at, message);
  // The log formats read so far (nginx's own `combined` first): an access_log that ran on into a
  // directive's name takes it as its format only when one of that name was read before it.
  const logFormats = new Set(['combined']);
  // nginx reads the mark as part of the first word ("unknown directive" naming invisible bytes).
  if (text.startsWith(BYTE_ORDER_MARK))
    throw nginxSyntaxError(
      file,
      1,
      "the file starts with a UTF-8 byte-order mark, which nginx refuses (it reads the mark as part of the first directive's name): save the file as UTF-8 without BOM",
      'bom',
    );

  function unescape(raw: string): string {
    return raw.replace(/\\(["'\\tnr])/g, (_, c: string) =>
      c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : c,
    );
  }

  function advanceTo(end: number): void {
    for (; pos < end; pos++) if (text[pos] === '\n') line++;
  }

  function readQuoted(quote: string): Word {
    const startLine = line;
    const start = pos + 1;
    let i = start;
    while (i < text.length && text[i] !== quote) i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) throw fail(startLine, `unexpected end of file: unterminated ${quote} string`);
    advanceTo(i + 1);
    const next = text[pos];
    if (next !== undefined && !WHITESPACE.has(next) && next !== ';' && next !== '{' && next !== ')')
      throw fail(line, `unexpected "${next}" after a quoted string (missing space or ";"?)`);
    // A `)` glued to a closing quote starts the next word: `if ($a = "b")` yields `($a`, `=`, `b`, `)`.
    return { value: unescape(text.slice(start, i)), line: startLine };
  }

  function readBare(): Word {
    const startLine = line;
    const start = pos;
    let i = pos;
    let afterDollar = false;
    while (i < text.length) {
      const ch = text[i] as string;
      if (ch === '{' && afterDollar) {
        afterDollar = false;
        i++;
        continue;
      }
      afterDollar = ch === '$';
      if (ch === '\\') {
        i += 2;
        continue;
      }
      if (WHITESPACE.has(ch) || ch === ';' || ch === '{') break;
      i++;
    }
    advanceTo(Math.min(i, text.length));
    return { value: unescape(text.slice(start, pos)), line: startLine };
  }

  /** Line of the `;` or `{` that ended the statement readStatement returned last. */
  let statementEnd = 1;

  function readStatement(inEntries: boolean): Statement {
    const words: Word[] = [];
    for (;;) {
      while (pos < text.length && WHITESPACE.has(text[pos] as string)) advanceTo(pos + 1);
      if (pos >= text.length) return { kind: 'eof', words, line };
      const ch = text[pos] as string;
      if (ch === ';' || ch === '{') {
        if (words.length === 0) throw fail(line, `unexpected "${ch}"`);
        statementEnd = line;
        pos++;
        return { kind: 'directive', words, end: ch, runOn: inEntries ? undefined : runOnWord(words) };
      }
      if (ch === '}') {
        if (words.length > 0) throw missingSemicolonIn(words, `before "}" on line ${line}`);
        pos++;
        return { kind: 'close', line };
      }
      if (ch === '#') {
        const eol = text.indexOf('\n', pos);
        const comment = text.slice(pos, eol === -1 ? text.length : eol).trimEnd();
        const commentLine = line;
        advanceTo(eol === -1 ? text.length : eol);
        const annotation = words.length === 0 ? ANNOTATION.exec(comment) : null;
        if (annotation) {
          const args = (annotation[2] ?? '').trim().split(/\s+/).filter(Boolean);
          return { kind: 'annotation', name: annotation[1] as string, args, line: commentLine };
        }
        continue;
      }
      words.push(ch === '"' || ch === "'" ? readQuoted(ch) : readBare());
    }
  }

  function missingSemicolonIn(words: Word[], where: string): ProxyopsError {
    const head = words[0] as Word;
    return missingSemicolon(
      file,
      head.line,
      words.map((w) => w.value),
      where,
    );
  }

  /** Index of the first word that starts a line and names a directive written first on its line. */
  function runOnWord(words: Word[]): number | undefined {
    for (let i = 1; i < words.length; i++) {
      const word = words[i] as Word;
      if (word.line > (words[i - 1] as Word).line && LINE_LEADING_DIRECTIVES.has(word.value)) return i;
    }
    return undefined;
  }

  function parseBlock(open: OpenBlock | undefined): { body: NginxDirective[]; endLine: number } {
    const body: NginxDirective[] = [];
    for (;;) {
      const statement = readStatement(open?.entries ?? false);
      switch (statement.kind) {
        case 'annotation':
          body.push({
            name: `${ANNOTATION_PREFIX}${statement.name}`,
            args: statement.args,
            file,
            line: statement.line,
          });
          break;
        case 'eof':
          if (statement.words.length > 0) throw missingSemicolonIn(statement.words, 'at end of file');
          if (open)
            throw fail(
              statement.line,
              `unexpected end of file, expecting "}" to close "${open.label}" opened on line ${open.line}`,
            );
          return { body, endLine: statement.line };
        case 'close':
          if (!open) throw fail(statement.line, 'unexpected "}" (no block is open here)');
          return { body, endLine: statement.line };
        case 'directive':
          body.push(toDirective(statement, open));
      }
    }
  }

  function toDirective(
    { words, end, runOn }: Extract<Statement, { kind: 'directive' }>,
    open: OpenBlock | undefined,
  ): NginxDirective {
    const [head, ...rest] = words as [Word, ...Word[]];
    const directive: NginxDirective = {
      name: head.value,
      args: rest.map((w) => w.value),
      file,
      line: head.line,
    };
    if (statementEnd !== head.line) directive.statementEndLine = statementEnd;
    if (directive.name === 'log_format' && directive.args[0] !== undefined) logFormats.add(directive.args[0]);
    if (runOn !== undefined) {
      const word = words[runOn] as Word;
      // nginx reads on to the `;`: refused as joined, the lost `;` is the error to show; taken,
      // lint reports what nginx made of it (semicolon-missing).
      directive.runsOnAt = { line: word.line, word: word.value, arg: runOn - 1 };
      if (runOnRefused(directive, end === '{', logFormats)) throw runOnError(directive, directive.runsOnAt);
    }
    if (head.value === 'if' && end === '{' && !open?.entries) readIfCondition(directive);
    if (end === ';') return directive;
    if (isRawBlock(head.value)) {
      const scanned = scanLuaBlock(text, pos);
      if (!scanned) throw fail(head.line, `unexpected end of file, expecting "}" to close "${head.value}"`);
      directive.raw = text.slice(pos, scanned.close);
      advanceTo(scanned.close);
      directive.endLine = line;
      pos++;
      return directive;
    }
    const entries = ENTRY_BLOCKS.has(head.value);
    const label = words.map((w) => w.value).join(' ');
    const depth = (open?.depth ?? 0) + 1;
    if (depth > MAX_BLOCK_DEPTH) throw tooDeep(file, head.line, head.value);
    const { body, endLine } = parseBlock({ label, line: head.line, entries, depth });
    if (entries) directive.entries = body;
    else directive.children = body;
    directive.endLine = endLine;
    return directive;
  }

  return parseBlock(undefined).body;
}

/**
 * Stores the condition of `if (...)` without its parentheses, as nginx's rewrite module reads it:
 * the first word must start with `(` and the last end with `)`; a lone `(` or `)` word is dropped.
 * A condition without them is kept as written and marked: nginx refuses it only after checking the
 * directive's context and argument count, so check-directives reports it in that order.
 */
function readIfCondition(directive: NginxDirective): void {
  const args = [...directive.args];
  const first = args[0];
  if (first === undefined) return;
  if (!first.startsWith('(')) {
    directive.invalidCondition = first;
    return;
  }
  if (first === '(') args.shift();
  else args[0] = first.slice(1);
  const last = args.at(-1);
  if (last === undefined || !last.endsWith(')')) {
    directive.invalidCondition = last ?? first;
    return;
  }
  if (last === ')') args.pop();
  else args[args.length - 1] = last.slice(0, -1);
  directive.args = args;
}
