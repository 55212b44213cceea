import { listLocations, locationMatch } from '../../nginx-config/query.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import { ifCondition } from '../../nginx-config/if-condition.js';
import { hasExponentialBacktracking } from '../../nginx-config/pcre/backtracking.js';
import { parsePcre } from '../../nginx-config/pcre/parse-pcre.js';
import { listConfigRegexes, type ConfigRegex } from '../regex/config-regexes.js';
import type { LintRule, RuleHit } from '../types.js';

/** `$1`…`$9` as nginx reads them: one digit, so `$10` is `$1` followed by `0`. */
const CAPTURE_REF = /\$([1-9])/g;

function captureRefs(values: string[]): number[] {
  return [...new Set(values.flatMap((v) => [...v.matchAll(CAPTURE_REF)].map((m) => Number(m[1]))))].sort();
}

const describe = (r: ConfigRegex) =>
  r.source === 'map' ? `map entry ${r.directive.name}` : `${r.source} ${r.pattern}`;

/** Directives inside a block that read its captures: every one but nested regex matchers. */
function captureReaders(block: NginxDirective): NginxDirective[] {
  return (block.children ?? []).filter(
    (d) => d.name !== 'rewrite' && d.name !== 'if' && d.name !== 'location',
  );
}

/** Captures referenced beyond what the pattern defines (nginx substitutes an empty string). */
function missingCaptures(regex: ConfigRegex, groups: number): RuleHit[] {
  const hits: RuleHit[] = [];
  const d = regex.directive;
  const report = (reader: NginxDirective, refs: number[], why: string) =>
    hits.push({
      file: reader.file,
      line: reader.line,
      directive: reader,
      what: `${reader.name} uses ${refs.map((n) => `$${n}`).join(', ')} but ${describe(regex)} ${why}`,
    });
  if (regex.source === 'rewrite') {
    const refs = captureRefs(d.args.slice(1, 2)).filter((n) => n > groups);
    if (refs.length > 0) report(d, refs, groups === 0 ? 'has no capture group' : `has only ${groups}`);
    return hits;
  }
  if (regex.source === 'map') {
    // A map entry's value may use the captures of the entry's own pattern.
    const refs = captureRefs(d.args).filter((n) => n > groups);
    if (refs.length > 0)
      hits.push({
        file: d.file,
        line: d.line,
        directive: d,
        what: `map value ${d.args.join(' ')} uses ${refs.map((n) => `$${n}`).join(', ')} but ${describe(regex)} ${groups === 0 ? 'has no capture group' : `has only ${groups}`}`,
      });
    return hits;
  }
  if (regex.source !== 'if' && regex.source !== 'location') return hits;
  // A location whose own rewrites or ifs capture again: its $N may come from those instead.
  if (regex.source === 'location' && (d.children ?? []).some((c) => c.name === 'rewrite' || c.name === 'if'))
    return hits;
  const negated = regex.source === 'if' && ifCondition(d)?.negated === true;
  for (const reader of captureReaders(d)) {
    const refs = captureRefs(reader.args);
    if (negated && refs.length > 0) report(reader, refs, 'runs this block only when it does not match');
    else {
      const beyond = refs.filter((n) => n > groups);
      if (beyond.length > 0)
        report(reader, beyond, groups === 0 ? 'has no capture group' : `has only ${groups}`);
    }
  }
  return hits;
}

/** gixy's invalid_regex (captures), and what pcre2_compile() refuses in a snippet nginx -t never saw. */
export const REGEX_INVALID: LintRule = {
  id: 'regex-invalid',
  severity: 'error',
  title: 'invalid regex, a capture it does not have, or a pattern that never matches',
  message:
    'A pattern PCRE refuses makes nginx -t fail and the reload abort. A $1…$9 the pattern does not capture (or an `if ($x !~ …)` block reading captures the match never set) is replaced by an empty string or a stale value from an earlier match: rewrites and proxy_pass go to the wrong path. A $ with more pattern after it (\\.jpg$/) never matches: the block is dead (a warning).',
  fix: 'fix the pattern; add the capture group ( … ) the reference needs, or name it (?<name> … ) and use $name; end the pattern at its $',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const regex of listConfigRegexes(config)) {
      const parsed = parsePcre(regex.pattern, regex.caseless);
      if (!parsed.ok) {
        hits.push({
          file: regex.directive.file,
          line: regex.directive.line,
          what: `${describe(regex)}: ${parsed.error} at offset ${parsed.offset}`,
        });
        continue;
      }
      hits.push(...missingCaptures(regex, parsed.regex.groups));
      const after = textAfterDeadEnd(regex.pattern);
      if (after !== undefined)
        hits.push({
          file: regex.directive.file,
          line: regex.directive.line,
          what: `${describe(regex)}: "$" is followed by "${after}", so the pattern never matches`,
          severity: 'warning',
        });
    }
    return hits;
  },
};

/**
 * A regex location whose pattern never matches (`$` followed by a character it must match): its
 * block is dead, so what other rules find inside it is moot. regex-invalid reports it.
 */
export function locationNeverMatches(block: NginxDirective): boolean {
  if (block.name !== 'location') return false;
  const { modifier, path } = locationMatch(block);
  return (modifier === '~' || modifier === '~*') && textAfterDeadEnd(path) !== undefined;
}

/**
 * Where a pattern of one alternative has, outside any group, a `$` followed by a character it must
 * match (`\.jpg$/`): `$` holds only at the end of the subject or before a final newline, so no
 * subject matches. Returns that character as written. Extended mode (`(?x)`) and `\Q` quoting,
 * which change what follows means, are not judged.
 */
function textAfterDeadEnd(pattern: string): string | undefined {
  if (topLevelBranches(pattern).length > 1 || /\\Q|\(\?[a-zA-Z-]*x/.test(pattern)) return undefined;
  let found: string | undefined;
  eachTopLevelChar(pattern, (c, i) => {
    if (c !== '$') return false;
    // A literal character (or escaped punctuation) that is not made optional by ?, * or {0.
    const rest = pattern.slice(i + 1);
    const literal = /^(?:\\[^A-Za-z0-9\s]|[^\\.[\](){}|*+?^$#\s])/.exec(rest)?.[0];
    if (literal && !/^(?:[?*]|\{0|\{,)/.test(rest.slice(literal.length))) found = literal;
    return found !== undefined;
  });
  return found;
}

/**
 * Calls `visit` with each character of `pattern` outside every group and character class (escaped
 * characters skipped), and its index, until it returns true.
 */
function eachTopLevelChar(pattern: string, visit: (c: string, i: number) => boolean): void {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') {
      inClass = true;
      if (pattern[i + 1] === '^') i++;
      if (pattern[i + 1] === ']') i++;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0 && visit(c, i)) return;
  }
}

/** The top-level alternatives of a pattern, as written. */
function topLevelBranches(pattern: string): string[] {
  const branches: string[] = [];
  let start = 0;
  eachTopLevelChar(pattern, (c, i) => {
    if (c !== '|') return false;
    branches.push(pattern.slice(start, i));
    start = i + 1;
    return false;
  });
  branches.push(pattern.slice(start));
  return branches;
}

const startsAnchored = (branch: string) => /^(?:\((?:\?[a-zA-Z-]*[:)])?)*(?:\^|\\A)/.test(branch);
const endsAnchored = (branch: string) =>
  /(?:\$|\\[zZ])\)*$/.test(branch) ||
  // Nextcloud's `\.php(?:$|/)`: the name ends there, or a path (PATH_INFO) follows it.
  /\((?:\?:)?(?:\$\|\/|\/\|\$)\)$/.test(branch);
/** `\.php`, `\.(jpg|png)` at the end: a file extension, which without `$` also matches x.php.txt. */
const endsWithExtension = (branch: string) => /\\\.(?:\w+|\((?:\?:)?[\w|]+\))$/.test(branch);

/**
 * A location that only refuses (deny all, return 403/404/444) or that clients cannot request
 * (`internal`): matching more than meant is safe. So is a deny-style location that ends in any
 * `return` (`location ~ /.git/ { return 500; }`): "anywhere in the path" is what it is written for.
 */
function onlyRefuses(location: NginxDirective): boolean {
  const children = location.children ?? [];
  if (children.some((c) => c.name === 'internal')) return true;
  const refuses = (c: NginxDirective) => (c.name === 'deny' && c.args[0] === 'all') || c.name === 'return';
  return (
    children.some(refuses) &&
    children.every((c) => refuses(c) || c.name === 'access_log' || c.name === 'log_not_found')
  );
}

/**
 * A location nested in one whose match is anchored to a path (`location ~ ^/uploads/ { location ~
 * /_?optimized/ ...`): nginx tries the inner pattern only on paths the outer one took, so it is
 * bounded by them. `location /` and an unanchored outer regex bound nothing.
 */
function boundedByParent(chain: readonly NginxDirective[]): boolean {
  const parent = chain.slice(0, -1).findLast((level) => level.name === 'location');
  if (!parent) return false;
  const { modifier, path } = locationMatch(parent);
  if (modifier === '~' || modifier === '~*')
    return topLevelBranches(path).every((b) => /^\^\/?[^/\s()|]*[\w-]/.test(b));
  return !path.startsWith('@') && path.replace(/^\/+/, '') !== '';
}

/** gixy's unanchored_regex: a location or server name pattern that matches more than meant. */
export const REGEX_UNANCHORED: LintRule = {
  id: 'regex-unanchored',
  severity: 'warning',
  title: 'regex location or server name without anchors',
  message:
    'Without ^ a pattern matches anywhere in the path or name: location ~ /admin also catches /public/admin, and server_name ~example\\.com also accepts example.com.attacker.net. Without $ an extension match such as \\.php also sends /upload/x.php.jpg to the PHP backend. Each alternative needs its own anchor (^/a|/b anchors only /a).',
  fix: 'anchor every alternative: location ~ ^/admin/, location ~ \\.php$, server_name ~^(www\\.)?example\\.com$',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    const chains = new Map(listLocations(config).map(({ block, chain }) => [block, chain]));
    for (const regex of listConfigRegexes(config)) {
      if (regex.source !== 'location' && regex.source !== 'server_name') continue;
      // A pattern that never matches is regex-invalid's finding; anchoring it changes nothing.
      if (textAfterDeadEnd(regex.pattern) !== undefined) continue;
      const branches = topLevelBranches(regex.pattern);
      let loose: string | undefined;
      if (regex.source === 'server_name')
        loose = branches.find((b) => !startsAnchored(b) || !endsAnchored(b));
      else if (!onlyRefuses(regex.directive)) {
        // Nested in a location anchored to a path, a match anywhere stays within that path; an
        // extension without `$` still takes x.php.jpg there.
        const bounded = boundedByParent(chains.get(regex.directive) ?? []);
        loose = branches.find(
          (b) =>
            (!bounded && !startsAnchored(b) && !endsAnchored(b)) ||
            (endsWithExtension(b) && !endsAnchored(b)),
        );
      }
      if (loose === undefined) continue;
      const where =
        regex.source === 'location'
          ? `location ${locationMatch(regex.directive).modifier} ${regex.pattern}`
          : `server_name ~${regex.pattern}`;
      hits.push({
        file: regex.directive.file,
        line: regex.directive.line,
        what: `${where}: ${branches.length > 1 ? `the alternative ${loose}` : 'the pattern'} is not anchored`,
      });
    }
    return hits;
  },
};

/** gixy's regex_redos: nested quantifiers and overlapping alternatives under a quantifier. */
export const REGEX_REDOS: LintRule = {
  id: 'regex-redos',
  severity: 'warning',
  title: 'regex open to catastrophic backtracking (ReDoS)',
  message:
    'PCRE backtracks: when a repeated part can match the same text in two ways — (a+)+, (\\w+\\s?)*, (a|a)*, (a|aa)* — a request that almost matches costs 2^n steps for n characters. One such request holds a worker (and every connection on it) for seconds to hours; nginx has no regex time limit.',
  fix: 'make each repetition match in one way only: (a+)+ → a+, (\\w+\\s?)* → [\\w\\s]*, (a|ab)* → a(b)?…; separate repeated parts with a character they cannot match ([^/]+/)*',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const regex of listConfigRegexes(config)) {
      const parsed = parsePcre(regex.pattern, regex.caseless);
      if (parsed.ok && hasExponentialBacktracking(parsed.regex.root))
        hits.push({
          file: regex.directive.file,
          line: regex.directive.line,
          what: `${describe(regex)} can match one string in exponentially many ways`,
        });
    }
    return hits;
  },
};

/**
 * The first `.` of a location pattern that is evidently meant as a literal dot: unescaped, outside
 * any character class, followed by a letter (so no quantifier makes it a wildcard on purpose), and
 * starting a dot-file or extension (after `/`, `^` or the start: `/.git/`, `.php$`) or ending a file
 * name (`index.php$`, `wp-login.php/`). Returns its index.
 */
function literalDotMeant(pattern: string): number | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '.' && /^[A-Za-z]/.test(pattern.slice(i + 1))) {
      const before = i === 0 ? '' : (pattern[i - 1] as string);
      const name = /^[A-Za-z][\w-]*/.exec(pattern.slice(i + 1))?.[0] ?? '';
      const after = pattern.slice(i + 1 + name.length);
      if (before === '' || before === '/' || before === '^') return i;
      if (/[\w-]/.test(before) && /^(?:$|[$/)|])/.test(after)) return i;
    }
  }
  return undefined;
}

/** `location ~ /.git/`: the `.` written for a dot matches any character. */
export const REGEX_DOT_UNESCAPED: LintRule = {
  id: 'regex-dot-unescaped',
  severity: 'warning',
  title: 'unescaped "." in a location regex meant as a dot',
  message:
    'In a regex "." matches any character: location ~ /.git/ also takes /xgit/ and /_git/ (a deny-list then refuses pages it was not written for), and location ~ .php$ sends /index_php to the PHP backend. The pattern does not say what it was written for.',
  fix: 'escape the dot: location ~ /\\.git/, location ~ \\.php$',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    for (const regex of listConfigRegexes(config)) {
      if (regex.source !== 'location') continue;
      const at = literalDotMeant(regex.pattern);
      if (at === undefined) continue;
      const example = (regex.pattern.slice(0, at) + 'x' + regex.pattern.slice(at + 1)).replace(
        /[\^$\\]/g,
        '',
      );
      hits.push({
        file: regex.directive.file,
        line: regex.directive.line,
        what: `location ${locationMatch(regex.directive).modifier} ${regex.pattern}: the "." matches any character, so the pattern also matches ${example}`,
      });
    }
    return hits;
  },
};
