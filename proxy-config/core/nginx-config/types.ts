import type { NginxContext } from './check-directives.js';

/**
 * One nginx directive as written: `name args...;` or `name args... { children }`.
 * `file` and `line` say where its name was written (after includes are resolved, the included file).
 */
export interface NginxDirective {
  name: string;
  /** Arguments with quotes removed and escapes resolved; variables (`$x`, `${x}`) are kept as text. */
  args: string[];
  file: string;
  line: number;
  /** The block body of a block directive (`http`, `server`, `location`, `upstream`, `if`, ...). */
  children?: NginxDirective[];
  /**
   * The entries of a block whose body is data rather than directives (`map`, `types`, `geo`,
   * `split_clients`, `charset_map`, `match`): each entry's first word is its `name`.
   */
  entries?: NginxDirective[];
  /** The verbatim body of a `*_by_lua_block { ... }` directive (without the outer braces). */
  raw?: string;
  /** Line of the closing `}` of a block, entry block or raw block. */
  endLine?: number;
  /**
   * Line of the `;` or `{` that ended the statement, when not `line` (its words spanned lines):
   * nginx reports a directive's errors there.
   */
  statementEndLine?: number;
  /**
   * Set when a word starting a later line of the statement is a directive usually written first on
   * its line (`expires` below `server_name a.example` with no `;`): nginx reads on to the `;` and
   * takes it as more arguments. Kept only where nginx accepts the joined statement.
   */
  runsOnAt?: RunOn;
  /**
   * Set on an `if` whose condition is not in parentheses (its args are then as written): the word
   * nginx names in its `invalid condition` error, which check-directives reports.
   */
  invalidCondition?: string;
  /**
   * Set on an `include` whose file does not exist (a companion file not published with the
   * config): the reason, as the system gave it. Lint reports it and goes on with the rest.
   */
  missing?: string;
  /**
   * Set on a directive nginx refuses in the context it is written in ("not allowed here"), when
   * the reader was asked to keep such directives: that context. Lint reports it and goes on.
   */
  notAllowedIn?: string;
}

/** Where a statement ran on: the line-leading word, its line, and its index in `args`. */
export interface RunOn {
  line: number;
  word: string;
  arg: number;
}

/**
 * A comment of the form `# proxyops: NAME ARGS...` becomes a directive named `proxyops:NAME`, so
 * annotations (declared outer timeouts, ignored rules) are found and inherited like directives.
 */
export const ANNOTATION_PREFIX = 'proxyops:';

/** A whole nginx configuration: the main file's directives with every `include` replaced by what it names. */
export interface NginxConfig {
  mainFile: string;
  /** Every file read, main file first, in reading order. */
  files: string[];
  /** Top-level directives (the main context, or the http context when linting a snippet). */
  directives: NginxDirective[];
  /**
   * The context the top level was read in (`main` for nginx.conf, the guessed or given one for a
   * snippet), when the reader checked the directives; rules needing it work it out again otherwise.
   */
  context?: NginxContext;
}
