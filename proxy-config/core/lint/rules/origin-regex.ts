import { ifCondition } from '../../nginx-config/if-condition.js';
import type { CharNode, RegexNode } from '../../nginx-config/pcre/parse-pcre.js';
import {
  anchoredAtStart,
  canHold,
  firstChars,
  lastChars,
  modelPcre,
  mustStartWith,
} from '../../nginx-config/pcre/pcre-analysis.js';
import { isHttpScope, walkDirectives } from '../../nginx-config/query.js';
import type { NginxConfig, NginxDirective } from '../../nginx-config/types.js';
import { RUNBOOKS } from '../runbooks.js';
import type { LintRule, RuleHit } from '../types.js';
import { definedVariable, gateVariable, refusesOnly, truthy, variableName } from '../variable-definitions.js';
import { variablesIn } from '../variable-sources.js';

/** What a checked value holds: an Origin (scheme://host[:port]) or a Referer (a whole URL). */
type Checked = 'origin' | 'referer';

const LABEL_CHARS = [...'abcdefghijklmnopqrstuvwxyz0123456789-'];
const holdsLabelChar = (set: CharNode) => LABEL_CHARS.some((ch) => set.test(ch));

/** An unescaped `.` that stands for one character (not the body of `.*`, which is a wildcard). */
function singleDot(node: RegexNode): boolean {
  switch (node.kind) {
    case 'char':
      return node.source === '.';
    case 'seq':
      return node.items.some(singleDot);
    case 'alt':
      return node.branches.some(singleDot);
    case 'group':
      return singleDot(node.body);
    case 'repeat':
      return node.body.kind !== 'char' && singleDot(node.body);
    default:
      return false;
  }
}

const DOT =
  'an unescaped "." in the host matches any character (a look-alike domain such as wwwXexample.com passes)';
const GLUED = 'a wildcard runs straight into the domain name (evil-example.com passes for example.com)';
const INTO_PATH = 'a wildcard in the host can run into the path (https://evil.test/.example.com passes)';
const OPEN_END = 'nothing ends the host ($, "/" or ":"): https://example.com.evil.test passes';
const BEFORE_SCHEME =
  'a wildcard before the scheme lets other text come first, as if there were no "^" (https://evil.test/?https://example.com passes a Referer check)';
const AFTER_DOMAIN =
  'a wildcard after the domain name lets the host go on (https://example.com.evil.test passes)';
const ORIGIN_PATH =
  'an Origin is scheme://host[:port] with no path, so a "/" after the host never matches: the check fails for every site, yours included';

/** Second-level labels that are public suffixes under many country codes (co.uk, com.tr, …). */
const SHORT_LABEL = 3;

/**
 * True when an unescaped dot cannot change which site matches: the fixed text after it still
 * holds a whole registrable domain (`l.o\.yandex\.ru`: only yandex.ru subdomains match), so the
 * dot sits in a subdomain label. A second-level label of up to three letters (co, com, org) may be
 * a public suffix and needs one more label.
 */
function dotInSubdomain(rest: RegexNode[]): boolean {
  let text = '';
  const take = (nodes: RegexNode[]): boolean => {
    for (const node of nodes) {
      if (node.kind === 'seq') {
        if (!take(node.items)) return false;
      } else if (node.kind === 'group') {
        if (!take([node.body])) return false;
      } else if (node.kind === 'char' && node.only !== undefined && !'/:?#'.includes(node.only)) {
        text += node.only;
      } else return node.kind === 'assert' || node.kind === 'char';
    }
    return true;
  };
  take(rest);
  const labels = text.split('.').slice(1);
  if (labels.length < 2 || labels.some((label) => label === '')) return false;
  return labels.length > 2 || (labels[0] as string).length > SHORT_LABEL;
}

const PROBE_CHARS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-./:?#'];

/** A class holding one letter in its two cases: a literal of a caseless pattern (`~*`'s `s`). */
function caselessLetter(set: CharNode): boolean {
  const held = PROBE_CHARS.filter((ch) => set.test(ch));
  return held.length > 0 && held.length <= 2 && new Set(held.map((ch) => ch.toLowerCase())).size === 1;
}

/** A repeat over a character class (not a literal such as the `s` of `https?`, also under `~*`). */
function wildcard(node: RegexNode): boolean {
  switch (node.kind) {
    case 'char':
      return node.only === undefined && !caselessLetter(node);
    case 'seq':
      return node.items.some(wildcard);
    case 'alt':
      return node.branches.some(wildcard);
    case 'group':
      return wildcard(node.body);
    case 'repeat':
      return wildcard(node.body);
    default:
      return false;
  }
}

type Walk = { problem: string } | 'closed' | 'open' | 'no-host';

/** Where the walk stands: in the host yet, the scheme seen so far, what the last item was. */
interface Place {
  inHost: boolean;
  tail: string;
  /** A wildcard came before the scheme. */
  looseStart: boolean;
  /** The last item was a literal label character (the end of a domain name so far). */
  afterLabel: boolean;
}

/**
 * Follows the pattern's top-level sequence (alternatives one by one) from the scheme into the host,
 * and reports the first way another host can match: a wildcard before the scheme, a
 * single-character dot, a wildcard glued to a label or running on after the domain, a host left
 * open at the end, a path after an Origin's host.
 */
function walk(items: RegexNode[], place: Place, checked: Checked, budget: { left: number }): Walk {
  if (--budget.left < 0) return 'closed';
  let { inHost, tail, looseStart, afterLabel } = place;
  for (let k = 0; k < items.length; k++) {
    const item = items[k] as RegexNode;
    const rest = items.slice(k + 1);
    const here = { inHost, tail, looseStart, afterLabel };
    if (item.kind === 'seq') return walk([...item.items, ...rest], here, checked, budget);
    if (item.kind === 'group') return walk([item.body, ...rest], here, checked, budget);
    if (item.kind === 'alt') {
      let outcome: Walk = 'no-host';
      for (const option of item.branches) {
        const result = walk([option, ...rest], here, checked, budget);
        if (typeof result === 'object' || result === 'open') return result;
        if (result === 'closed') outcome = 'closed';
      }
      return outcome;
    }
    if (!inHost) {
      if (item.kind === 'char' && item.only !== undefined) {
        tail = (tail + item.only).slice(-3);
        inHost = tail === '://';
        if (inHost && looseStart) return { problem: BEFORE_SCHEME };
      } else if (item.kind === 'repeat' && wildcard(item)) looseStart = true;
      continue;
    }
    const wasAfterLabel = afterLabel;
    afterLabel = item.kind === 'char' && item.only !== undefined && LABEL_CHARS.includes(item.only);
    if (item.kind === 'assert') {
      if (item.what === 'end') return 'closed';
      continue;
    }
    if (item.kind === 'char') {
      if (item.source === '.') {
        if (dotInSubdomain(rest)) continue;
        return { problem: DOT };
      }
      if (item.only === '/' && checked === 'origin') return { problem: ORIGIN_PATH };
      if (item.only !== undefined && '/?#:'.includes(item.only)) return 'closed';
      continue;
    }
    if (item.kind !== 'repeat') continue;
    if (singleDot(item) && !dotInSubdomain(rest)) return { problem: DOT };
    if (checked === 'referer' && item.body.kind === 'char' && item.body.test('/'))
      return { problem: INTO_PATH };
    const next = firstChars({ kind: 'seq', items: rest });
    if (
      lastChars(item.body).some(holdsLabelChar) &&
      next.some((set) => set.only !== '.' && holdsLabelChar(set))
    )
      return { problem: GLUED };
    if (wasAfterLabel && wildcard(item) && canHold(item, '.') && LABEL_CHARS.some((ch) => canHold(item, ch)))
      return { problem: AFTER_DOMAIN };
    if (item.min > 0 && (mustStartWith(item.body, '/') || mustStartWith(item.body, ':'))) return 'closed';
  }
  return inHost ? 'open' : 'no-host';
}

/**
 * The start of an Origin pattern that can only match at a boundary a site cannot move: the scheme
 * (`https://`, `https?://`, `://`: an Origin is scheme://host[:port], so "://" occurs once, after
 * the scheme) or a label's dot (`\.example\.com$`: what follows the dot is a domain suffix only
 * example.com's subdomains have). There "^" changes nothing: a browser sends no Origin a match can
 * start inside of (shown live in error-audit-live.test.ts). A Referer holds a path, where anything
 * can come first, so it always needs "^".
 */
const ORIGIN_BOUNDARY = /^(?:\(\?[a-z]+\))?(?:(?:https?\??|\(https?\??\)|\(https?\|https?\))?:\/\/|\\\.)/i;

/** Why a regex accepts origins or referers of other sites, or undefined when it holds. */
export function originRegexProblem(
  regex: string,
  caseless: boolean,
  checked: Checked,
  hostFirst = false,
): string | undefined {
  const pattern = modelPcre(regex, caseless);
  if (!pattern) return undefined;
  const atBoundary = !anchoredAtStart(pattern) && checked === 'origin' && ORIGIN_BOUNDARY.test(regex);
  if (!anchoredAtStart(pattern) && !atBoundary)
    return `no "^": a value that merely contains a match passes (https://evil.test/?${hostFirst ? '' : 'https://'}example.com)`;
  const start = (inHost: boolean): Place => ({ inHost, tail: '', looseStart: false, afterLabel: false });
  let result = walk([pattern.root], start(hostFirst), checked, { left: 256 });
  // No scheme in the pattern: it is matched from the host on (and never matches a real Origin or
  // Referer, which start with one), so read its host from the start.
  if (result === 'no-host') result = walk([pattern.root], start(true), checked, { left: 256 });
  if (typeof result === 'object') return result.problem;
  if (result === 'open') return OPEN_END;
  return atBoundary ? UNANCHORED_AT_BOUNDARY : undefined;
}

/** An Origin pattern without "^" that can start only at the scheme or a label's dot (a warning). */
export const UNANCHORED_AT_BOUNDARY =
  'no "^", but the match can start only at the scheme or at a dot of the host: the Origin a browser sends (scheme://host[:port]) cannot pass for another site, a client other than a browser can (Origin: https://evil.test/?https://example.com)';

const CHECKED_VARIABLES: Record<string, Checked> = { $http_origin: 'origin', $http_referer: 'referer' };

/** A domain name (`example\.com`, `yandex.ru`) or a scheme: a pattern with one names a site. */
const NAMES_A_SITE = /:\/\/|[a-z0-9-]\\?\.[a-z]{2,}/i;

/**
 * How many access gates (`if ($var) { return 403; }`) read a map's variable; undefined when
 * anything else reads it too (a CORS header, a proxy_pass, another map), as an allow-list's would.
 */
function gatesReading(config: NginxConfig, name: string): number | undefined {
  let gates = 0;
  let other = false;
  const mentions = (words: string[]) => words.some((word) => variablesIn(word).includes(name));
  walkDirectives(config, (d) => {
    if (gateVariable(d) === name) gates++;
    else if (
      mentions(definedVariable(d) === name ? d.args.filter((a) => variableName(a) !== name) : d.args) ||
      (d.entries ?? []).some((entry) => mentions([entry.name, ...entry.args]))
    )
      other = true;
  });
  return other ? undefined : gates;
}

/** gixy's origins: a regex meant to accept only our own sites, which other sites also match. */
export const ORIGIN_REGEX_UNSAFE: LintRule = {
  id: 'origin-regex-unsafe',
  severity: 'error',
  title: 'Origin/Referer regex accepts other sites',
  message:
    'A regex that lets $http_origin or $http_referer in (in if, a map feeding CORS headers, or valid_referers) is an access check: unanchored, with an unescaped dot, a wildcard glued to the domain or a host left open, it also matches origins an attacker can register, and their pages get CORS access, embedding or hotlinking meant for yours.',
  fix: 'anchor both ends and escape every dot: ~^https://(www\\.)?example\\.com$ for an Origin, ~^https://(www\\.)?example\\.com/ for a Referer; valid_referers ~^(www\\.)?example\\.com/',
  runbook: RUNBOOKS.originChecks,
  test: (config) => {
    const hits: RuleHit[] = [];
    const report = (d: NginxDirective, line: number, regex: string, problem: string | undefined) => {
      if (problem)
        hits.push({
          file: d.file,
          line,
          what: `"${regex}": ${problem}`,
          // CSRF and CORS guard a victim's browser, which sends its page's own origin: the harm
          // depends on whether the check also gates clients that are not browsers.
          ...(problem === UNANCHORED_AT_BOUNDARY ? { severity: 'warning' as const } : {}),
        });
    };
    walkDirectives(config, (d, chain) => {
      if (!isHttpScope({ block: d, chain })) return;
      if (d.name === 'if') {
        const condition = ifCondition(d);
        if (!condition?.regex) return;
        if (condition.variable === '$http_referrer')
          hits.push({
            file: d.file,
            line: d.line,
            directive: d,
            what: '$http_referrer is always empty: the header is spelled Referer ($http_referer)',
          });
        const checked = CHECKED_VARIABLES[condition.variable];
        // A deny-list (`~ (poker|casino)` → return 403): a match anywhere in the value refuses.
        const denies = !condition.negated && refusesOnly(d);
        if (checked && !denies)
          report(
            d,
            d.line,
            condition.regex,
            originRegexProblem(condition.regex, condition.caseless, checked),
          );
      }
      if (d.name === 'map') {
        const checked = CHECKED_VARIABLES[d.args[0] ?? ''];
        if (!checked) return;
        const name = definedVariable(d);
        const gates = name === undefined ? undefined : gatesReading(config, name);
        for (const entry of d.entries ?? []) {
          if (!entry.name.startsWith('~')) continue;
          const regex = entry.name.replace(/^~\*?/, '');
          // A deny-list entry: a match sets the variable that only access gates read (perusio's
          // blacklist.conf), or, with no reader in sight, a pattern of words that names no site.
          const denies =
            gates !== undefined && truthy(entry.args[0] ?? '') && (gates > 0 || !NAMES_A_SITE.test(regex));
          if (denies) continue;
          report(d, entry.line, regex, originRegexProblem(regex, entry.name.startsWith('~*'), checked));
        }
      }
      // valid_referers matches its regexes against the Referer after "http://" or "https://".
      if (d.name === 'valid_referers')
        for (const arg of d.args.filter((a) => a.startsWith('~'))) {
          const regex = arg.replace(/^~\*?/, '');
          report(d, d.line, regex, originRegexProblem(regex, true, 'referer', true));
        }
    });
    return hits;
  },
};

/** gixy's valid_referers: `none` lets every request without a Referer through. */
export const VALID_REFERERS_NONE: LintRule = {
  id: 'valid-referers-none',
  severity: 'warning',
  title: 'valid_referers accepts requests without a Referer',
  message:
    'With none in valid_referers, a request that carries no Referer counts as valid: privacy settings, Referrer-Policy: no-referrer and every script or curl send none, so the hotlink or embedding protection built on $invalid_referer lets exactly them through.',
  fix: 'drop none (keep blocked if proxies strip the header), and decide explicitly what a request without Referer gets',
  runbook: RUNBOOKS.originChecks,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (d.name === 'valid_referers' && d.args.some((a) => a.toLowerCase() === 'none'))
        hits.push({ file: d.file, line: d.line, what: `valid_referers ${d.args.join(' ')}` });
    });
    return hits;
  },
};
