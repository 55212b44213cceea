import { ALTERNATE_MARK, isAlternateLine } from './alternate-marks.js';
import { locateUpstream, parseTree } from './locate-upstream.js';
import { serverKey } from '../deploy/compare-live-with-plan.js';
import { lineBody, splitKeepingEnds } from './text-lines.js';
import type { NginxTree } from './tree.js';

/**
 * The refusal of a change to a hand-written tree (an adoption, its undo, a rollback, a shipped
 * tree) that drops the `server` line of an address where an instance serves: after a deploy on the
 * alternate path the instances may all be on the alternates, and putting the block back as it was
 * before adoption would leave nginx a pool nothing serves (issue 36, trial findings 1-3). A row of
 * the same shape as ADOPTION_REFUSALS', tried on the change once it is planned.
 */
export const SERVING_LINE_RULE = {
  id: 'drops-serving-line',
  severity: 'error',
  message:
    'A change that drops the server line of an address where an instance serves takes that instance out of nginx while it runs; when it was the pool, nothing serves.',
  fix: 'move the instances to addresses the change keeps first (a deploy moves each to the other address of its pair), then run the change again',
  runbook: 'docs/nginx-as-it-is.md#what-proxyops-refuses',
} as const;

/** A `server` line of an upstream block: its address as written, and the other address of its pair per proxyops' mark. */
export interface BlockServer {
  address: string;
  key: string;
  /** The pair's other address as written: a marked line's primary, or a primary's marked line. */
  partner?: string;
}

/** The server lines of `upstream NAME { }` in a tree (undefined when the tree does not define it once). */
export function blockServers(tree: NginxTree, name: string): BlockServer[] | undefined {
  const located = locateUpstream(tree, parseTree(tree), name);
  if (located.definitions.length !== 1) return undefined;
  const lines = located.servers.map(({ directive, key }) => {
    const text = splitKeepingEnds(tree.files.get(directive.file) ?? '')[
      (directive.statementEndLine ?? directive.line) - 1
    ];
    const marked = text !== undefined && isAlternateLine(text) ? markedPartner(text) : undefined;
    return { address: directive.args[0]!, key, ...(marked ? { partner: marked } : {}) };
  });
  return lines.map((line) => {
    if (line.partner) return line;
    const alternate = lines.find((l) => l.partner !== undefined && serverKey(l.partner) === line.key);
    return alternate ? { ...line, partner: alternate.address } : line;
  });
}

/** The address a marked line names as its primary (`# proxyops: alternate of HOST:PORT`). */
function markedPartner(line: string): string | undefined {
  const at = lineBody(line).lastIndexOf(ALTERNATE_MARK);
  return lineBody(line)
    .slice(at + ALTERNATE_MARK.length)
    .trim()
    .split(/\s+/)[0];
}

/** What a planned change does to one upstream block, and where instances run now. */
export interface UpstreamChange {
  upstream: string;
  /** The block's server lines now (what the live nginx sends traffic to). */
  before: readonly BlockServer[];
  /** The keys (serverKey) of the block's server lines once the change is made. */
  after: readonly string[];
  /** Keys of the addresses where an instance runs now (recorded in the state and alive, or accepting connections). */
  running: readonly string[];
  /** The blue/green pairs of the spec the command was given (pairKey), which a deploy with it moves between. */
  specPairs: ReadonlySet<string>;
}

/** The key of an unordered pair of addresses (by serverKey), as `specPairs` holds them. */
export function pairKey(a: string, b: string): string {
  return [serverKey(a), serverKey(b)].sort().join(' | ');
}

/** A refusal: the upstreams whose serving lines the change drops, in one line. */
export interface ServingLineRefusal {
  rule: typeof SERVING_LINE_RULE.id;
  cut: Array<{ upstream: string; addresses: string[] }>;
  text: string;
}

/**
 * The refusal of a change that drops the line of an address where an instance runs, with what to
 * do instead; undefined when every running instance keeps its line. `specPath` names the spec in
 * the commands the line gives.
 */
export function servingLineRefusal(
  changes: readonly UpstreamChange[],
  specPath: string,
): ServingLineRefusal | undefined {
  const cut = changes.flatMap((change) => {
    const clause = upstreamClause(change, specPath);
    return clause ? [clause] : [];
  });
  if (cut.length === 0) return undefined;
  return {
    rule: SERVING_LINE_RULE.id,
    cut: cut.map(({ upstream, addresses }) => ({ upstream, addresses })),
    text: `${cut.map((c) => c.text).join('; ')}; nothing changed [${SERVING_LINE_RULE.id}]`,
  };
}

function upstreamClause(
  { upstream, before, after, running, specPairs }: UpstreamChange,
  specPath: string,
): { upstream: string; addresses: string[]; text: string } | undefined {
  const kept = new Set(after);
  const runs = new Set(running);
  const serving = before.filter((s) => runs.has(s.key));
  const cut = serving.filter((s) => !kept.has(s.key));
  if (cut.length === 0) return undefined;
  const addresses = cut.map((s) => s.address);
  const left = serving.length === cut.length ? ' and nothing would serve the lines it keeps' : '';
  const what = `upstream ${upstream}: the change drops the line of ${addresses.join(', ')}, where ${cut.length === 1 ? 'an instance serves' : 'instances serve'} now: nginx would send ${cut.length === 1 ? 'it' : 'them'} nothing${left}`;
  return {
    upstream,
    addresses,
    text: `${what}; ${fixFor(upstream, serving, cut, kept, specPairs, specPath)}`,
  };
}

/**
 * What moves the instances off the dropped lines: a deploy, when it moves every serving instance
 * to a pair's address the change keeps; else a hand-over of each dropped one to its kept partner;
 * else nothing proxyops can name. A deploy moves between the pairs of the spec it is given: when
 * that spec no longer pairs them as the block does, the spec the block was adopted with is named.
 */
function fixFor(
  upstream: string,
  serving: readonly BlockServer[],
  cut: readonly BlockServer[],
  kept: ReadonlySet<string>,
  specPairs: ReadonlySet<string>,
  specPath: string,
): string {
  const movable = (s: BlockServer) => s.partner !== undefined && kept.has(serverKey(s.partner));
  const spec = (moved: readonly BlockServer[]) => {
    const unpaired = moved.find((s) => !specPairs.has(pairKey(s.address, s.partner!)));
    return unpaired
      ? `--spec ADOPTED (the spec this block was adopted with: ${specPath} no longer pairs ${unpaired.address} with ${unpaired.partner})`
      : `--spec ${specPath}`;
  };
  if (serving.every(movable)) {
    const moves = serving.map((s) => `${s.address} -> ${s.partner}`).join(', ');
    return `deploy the upstream back to the addresses the change keeps first: proxyops deploy ${spec(serving)} --upstream ${upstream} (each instance moves to the other address of its pair: ${moves}), then run this again`;
  }
  if (cut.every(movable)) {
    const handOvers = cut.map((s) => `--replace ${s.address} --with ${s.partner}`).join(', then ');
    return `start an instance on the kept address of each pair and hand over to it first: proxyops deploy ${spec(cut)} --upstream ${upstream} ${handOvers}, then run this again`;
  }
  return 'move those instances to addresses the change keeps (or stop them, if they are meant to go) first, then run this again';
}
