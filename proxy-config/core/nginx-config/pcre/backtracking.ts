import type { CharTest, RegexNode } from './parse-pcre.js';

/**
 * Exponential backtracking (ReDoS) in a parsed pattern. PCRE is a backtracking matcher: when one
 * string can be matched by a loop in two different ways — `(a+)+`, `(\w+\s?)*`, `(a|a)*`,
 * `(a|aa)*` — a failing match tries every combination, 2^n steps for n characters.
 *
 * The check is the "exponential degree of ambiguity" test on the pattern's position automaton
 * (Glushkov): each character position is a state, and a pattern blows up when some state can come
 * back to itself along two different paths reading the same characters. Edges are counted with
 * multiplicity, so `(a+)+` (the inner and the outer loop both lead a → a) is ambiguous although
 * its automaton, as a set of edges, is deterministic.
 */

/** Characters each position is probed with (ASCII, and a few beyond it). */
const SAMPLES: string[] = [
  ...Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)),
  'é',
  'ж',
  '中',
  '\u2028',
];

/** Patterns with more positions than this are not analysed (the check is quadratic in pairs). */
const MAX_POSITIONS = 60;
/** Bounded repeats are unrolled up to this many copies; more behaves the same for ambiguity. */
const MAX_UNROLL = 3;

interface Fragment {
  nullable: boolean;
  first: number[];
  last: number[];
}

class TooLarge extends Error {}

/** True when the pattern can backtrack exponentially; false too when it is too large to tell. */
export function hasExponentialBacktracking(root: RegexNode): boolean {
  const tests: CharTest[] = [];
  /** follow[p] lists the positions that may come after p, repeated once per way they can. */
  const follow: number[][] = [];
  const position = (test: CharTest): Fragment => {
    if (tests.length >= MAX_POSITIONS) throw new TooLarge();
    tests.push(test);
    follow.push([]);
    const p = tests.length - 1;
    return { nullable: false, first: [p], last: [p] };
  };
  const link = (from: number[], to: number[]) => {
    for (const f of from) (follow[f] as number[]).push(...to);
  };
  const empty: Fragment = { nullable: true, first: [], last: [] };

  const concat = (a: Fragment, b: Fragment): Fragment => {
    link(a.last, b.first);
    return {
      nullable: a.nullable && b.nullable,
      first: a.nullable ? [...a.first, ...b.first] : a.first,
      last: b.nullable ? [...a.last, ...b.last] : b.last,
    };
  };

  const build = (node: RegexNode): Fragment => {
    switch (node.kind) {
      case 'char':
        return position(node.test);
      case 'assert':
        return empty;
      case 'group':
        return build(node.body);
      case 'seq':
        return node.items.reduce((acc, item) => concat(acc, build(item)), empty);
      case 'alt': {
        const parts = node.branches.map(build);
        return {
          nullable: parts.some((p) => p.nullable),
          first: parts.flatMap((p) => p.first),
          last: parts.flatMap((p) => p.last),
        };
      }
      case 'repeat': {
        const mandatory = Math.min(node.min, MAX_UNROLL);
        let result = empty;
        for (let i = 0; i < mandatory; i++) result = concat(result, build(node.body));
        if (node.max === Infinity) {
          const loop = build(node.body);
          link(loop.last, loop.first);
          return concat(result, { nullable: true, first: loop.first, last: loop.last });
        }
        const optional = Math.min(node.max, MAX_UNROLL) - mandatory;
        for (let i = 0; i < optional; i++) {
          const copy = build(node.body);
          result = concat(result, { nullable: true, first: copy.first, last: copy.last });
        }
        return result;
      }
    }
  };

  try {
    build(root);
  } catch (error) {
    if (error instanceof TooLarge) return false;
    throw error;
  }
  return ambiguousLoop(tests, follow);
}

/**
 * The EDA criterion on the product automaton: a strongly connected component holding a pair (p,p)
 * and either a pair (q,r) with q ≠ r, or a step (p,p) → (q,q) that two parallel edges allow.
 */
function ambiguousLoop(tests: CharTest[], follow: number[][]): boolean {
  const n = tests.length;
  const matches = tests.map((test) => SAMPLES.map((ch) => test(ch)));
  // For each position, the positions reading at least one character it reads too.
  const overlapping = matches.map((a) =>
    matches.flatMap((b, index) => (a.some((hit, i) => hit && b[i]) ? [index] : [])),
  );
  const next = follow.map((targets) => new Set(targets));
  const id = (p: number, q: number) => p * n + q;
  const edges: number[][] = Array.from({ length: n * n }, () => []);
  const doubled = new Set<string>();
  for (let p = 0; p < n; p++) {
    const counts = new Map<number, number>();
    for (const f of follow[p] as number[]) counts.set(f, (counts.get(f) ?? 0) + 1);
    for (const [f, count] of counts) if (count > 1) doubled.add(`${p}>${f}`);
    for (let q = 0; q < n; q++) {
      const targets = edges[id(p, q)] as number[];
      const nextQ = next[q] as Set<number>;
      for (const fp of next[p] as Set<number>)
        for (const fq of overlapping[fp] as number[]) if (nextQ.has(fq)) targets.push(id(fp, fq));
    }
  }
  const component = stronglyConnected(edges);
  for (let p = 0; p < n; p++) {
    const home = component[id(p, p)];
    for (let q = 0; q < n; q++)
      for (let r = 0; r < n; r++) {
        if (component[id(q, r)] !== home) continue;
        if (q !== r) return true;
      }
    for (const f of new Set(follow[p]))
      if (doubled.has(`${p}>${f}`) && component[id(f, f)] === home) return true;
  }
  return false;
}

/** Tarjan's algorithm, iterative (patterns are small, but recursion depth should not depend on them). */
function stronglyConnected(edges: number[][]): number[] {
  const count = edges.length;
  const index = new Array<number>(count).fill(-1);
  const low = new Array<number>(count).fill(0);
  const component = new Array<number>(count).fill(-1);
  const onStack = new Array<boolean>(count).fill(false);
  const stack: number[] = [];
  let next = 0;
  let components = 0;
  for (let start = 0; start < count; start++) {
    if (index[start] !== -1) continue;
    const work: Array<{ node: number; edge: number }> = [{ node: start, edge: 0 }];
    index[start] = low[start] = next++;
    stack.push(start);
    onStack[start] = true;
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: number; edge: number };
      const out = edges[frame.node] as number[];
      if (frame.edge < out.length) {
        const to = out[frame.edge++] as number;
        if (index[to] === -1) {
          index[to] = low[to] = next++;
          stack.push(to);
          onStack[to] = true;
          work.push({ node: to, edge: 0 });
        } else if (onStack[to]) low[frame.node] = Math.min(low[frame.node] as number, index[to] as number);
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low[parent.node] = Math.min(low[parent.node] as number, low[frame.node] as number);
      if (low[frame.node] === index[frame.node]) {
        for (;;) {
          const member = stack.pop() as number;
          onStack[member] = false;
          component[member] = components;
          if (member === frame.node) break;
        }
        components++;
      }
    }
  }
  return component;
}
