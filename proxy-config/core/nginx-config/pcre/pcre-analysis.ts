import { parsePcre, type CharNode, type ParsedRegex, type RegexNode } from './parse-pcre.js';

/**
 * What a parsed pattern can match, for the rules that ask which characters a capture can hold or
 * what a match starts with. Asserts (^, $, \b, lookarounds) match no character.
 */

/** True when the node can match the empty string. */
export function nullable(node: RegexNode): boolean {
  switch (node.kind) {
    case 'char':
      return false;
    case 'seq':
      return node.items.every(nullable);
    case 'alt':
      return node.branches.some(nullable);
    case 'group':
      return nullable(node.body);
    case 'repeat':
      return node.min === 0 || nullable(node.body);
    default:
      return true;
  }
}

/** True when some string the node matches contains `ch`. */
export function canHold(node: RegexNode, ch: string): boolean {
  switch (node.kind) {
    case 'char':
      return node.test(ch);
    case 'seq':
      return node.items.some((item) => canHold(item, ch));
    case 'alt':
      return node.branches.some((branch) => canHold(branch, ch));
    case 'group':
      return canHold(node.body, ch);
    case 'repeat':
      return node.max > 0 && canHold(node.body, ch);
    default:
      return false;
  }
}

/** The positions the first (or with `fromEnd`, the last) character of a match can come from. */
function edgeChars(node: RegexNode, fromEnd: boolean): CharNode[] {
  switch (node.kind) {
    case 'char':
      return [node];
    case 'seq': {
      const out: CharNode[] = [];
      for (const item of fromEnd ? [...node.items].reverse() : node.items) {
        out.push(...edgeChars(item, fromEnd));
        if (!nullable(item)) break;
      }
      return out;
    }
    case 'alt':
      return node.branches.flatMap((branch) => edgeChars(branch, fromEnd));
    case 'group':
      return edgeChars(node.body, fromEnd);
    case 'repeat':
      return node.max > 0 ? edgeChars(node.body, fromEnd) : [];
    default:
      return [];
  }
}

/** The positions the first character of a match can come from. */
export const firstChars = (node: RegexNode): CharNode[] => edgeChars(node, false);

/** The positions the last character of a match can come from. */
export const lastChars = (node: RegexNode): CharNode[] => edgeChars(node, true);

/** True when some match starts with `ch`. */
export function canStartWith(node: RegexNode, ch: string): boolean {
  return firstChars(node).some((c) => c.test(ch));
}

/** True when every match is non-empty and starts with `ch`. */
export function mustStartWith(node: RegexNode, ch: string): boolean {
  return !nullable(node) && firstChars(node).every((c) => c.only === ch);
}

function topBranches(regex: ParsedRegex): RegexNode[] {
  return regex.root.kind === 'alt' ? regex.root.branches : [regex.root];
}

/** Every alternative at the top level begins with `^` (or `\A`, `\G`). */
export function anchoredAtStart(regex: ParsedRegex): boolean {
  return topBranches(regex).every((branch) => {
    const first = branch.kind === 'seq' ? branch.items[0] : branch;
    return first?.kind === 'assert' && first.what === 'start';
  });
}

/** Every alternative at the top level ends with `$` (or `\z`, `\Z`). */
export function anchoredAtEnd(regex: ParsedRegex): boolean {
  return topBranches(regex).every((branch) => {
    const last = branch.kind === 'seq' ? branch.items.at(-1) : branch;
    return last?.kind === 'assert' && last.what === 'end';
  });
}

/**
 * The pattern parsed, when the tree models it exactly; undefined when nginx would refuse it or the
 * tree only stands in for part of it (a backreference), so that rules stay silent rather than guess.
 */
export function modelPcre(pattern: string, caseless = false): ParsedRegex | undefined {
  const parsed = parsePcre(pattern, caseless);
  return parsed.ok && !parsed.regex.approximate ? parsed.regex : undefined;
}
