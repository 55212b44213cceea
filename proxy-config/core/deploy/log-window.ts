import type { StatusDistribution } from '../apply/status-distribution.js';
import { createLineFacts, type LineFacts } from '../logs/line-facts.js';
import type { LogReaderKit } from '../logs/log-format-presets.js';

/** Requests one upstream address got in a stretch of access log. */
export interface AddressCount {
  total: number;
  fivexx: number;
  /** Requests answered 502 (with the API behind it, only nginx answers 502: it could not use the address). */
  badGateway: number;
  /** Requests that surely started inside the window: their request time is below `freshBelowMs`. */
  fresh: number;
}

/** What a stretch of access log says about a deploy step. */
export interface LogWindow {
  distribution: StatusDistribution;
  /** Per upstream address; a retried request counts once for every address it tried. */
  byAddress: Record<string, AddressCount>;
  /** Lines the format did not match. */
  skipped: number;
  /** 99th percentile of the request times logged (ms; 0 without any). */
  p99Ms: number;
  /** Lines that name the instance that answered (`ui=`, from its X-Proxyops-Instance header). */
  named: number;
  /**
   * The request times the latency gate compares (ms, in log order): of answers other than 5xx, so a
   * release failing fast neither looks fast nor makes the one beside it look slow.
   */
  latencyMs: number[];
  /** The line of the text each of latencyMs was read from (to align two windows in time). */
  latencyLines: number[];
  /** The route of each of latencyMs (see routeOf); '' where the format logs no request. */
  latencyRoutes: string[];
}

/** Which lines a window keeps. */
export type LinePick = (facts: LineFacts) => boolean;

/**
 * Reads complete access-log lines with the log parser. A request logged in the window with a request
 * time below `freshBelowMs` (the time between a reload and the start of the window) began after the
 * reload, so it counts as `fresh` for every address it reached.
 */
export function summarizeLogWindow(
  kit: LogReaderKit,
  text: string,
  freshBelowMs = 0,
  pick: LinePick = () => true,
): LogWindow {
  const tally = tallyWindows(kit, freshBelowMs, [pick]);
  tally.add(text);
  return tally.windows()[0]!;
}

/** What one window has counted so far. */
interface Tally {
  byStatus: Record<string, number>;
  byAddress: Record<string, AddressCount>;
  total: number;
  fivexx: number;
  named: number;
  times: number[];
  timeLines: number[];
  timeRoutes: string[];
  all: number[];
}

/**
 * Windows that grow as whole lines of log arrive: what summarizeLogWindow gives for all the text
 * added so far, each line parsed once when it is added. A watch adds what each look read, so it
 * parses only the new lines, not the whole watch again (a saturated log is thousands of lines a
 * second, on the cores the new instance needs); each look still copies the windows it hands out.
 */
interface WindowTally {
  /** Whole lines read after those added before; their line numbers go on from them. */
  add(text: string): void;
  /** One window per pick over every line added; the next add goes on growing them. */
  windows(): LogWindow[];
}

/** One window per pick: each line is parsed once, whichever windows keep it. */
function tallyWindows(kit: LogReaderKit, freshBelowMs: number, picks: LinePick[]): WindowTally {
  const { read } = kit.createReader();
  const facts = createLineFacts();
  const tallies = picks.map((): Tally => ({
    byStatus: {},
    byAddress: {},
    total: 0,
    fivexx: 0,
    named: 0,
    times: [],
    timeLines: [],
    timeRoutes: [],
    all: [],
  }));
  let skipped = 0;
  let lineNo = 0;
  return {
    add(text) {
      let start = 0;
      while (start < text.length) {
        lineNo++;
        let end = text.indexOf('\n', start);
        if (end < 0) end = text.length;
        if (end > start) {
          if (!read(text, start, end, facts)) skipped++;
          else
            for (let i = 0; i < picks.length; i++)
              if (picks[i]!(facts)) count(tallies[i]!, facts, lineNo, freshBelowMs);
        }
        start = end + 1;
      }
    },
    windows: () =>
      tallies.map((t) => {
        // Sorted in place: the next look sorts an array already sorted but for the lines added since.
        const sorted = t.all.sort((a, b) => a - b);
        return {
          distribution: {
            total: t.total,
            byStatus: { ...t.byStatus },
            share5xx: t.total === 0 ? 0 : t.fivexx / t.total,
          },
          byAddress: Object.fromEntries(Object.entries(t.byAddress).map(([a, c]) => [a, { ...c }])),
          skipped,
          named: t.named,
          p99Ms:
            sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))]!,
          latencyMs: t.times.slice(),
          latencyLines: t.timeLines.slice(),
          latencyRoutes: t.timeRoutes.slice(),
        };
      }),
  };
}

function count(t: Tally, facts: LineFacts, lineNo: number, freshBelowMs: number): void {
  if (facts.instance !== '') t.named++;
  const status = String(facts.status).padStart(3, '0');
  t.byStatus[status] = (t.byStatus[status] ?? 0) + 1;
  t.total++;
  const is5xx = facts.status >= 500 && facts.status <= 599;
  if (is5xx) t.fivexx++;
  if (facts.requestTimeMs >= 0) {
    t.all.push(facts.requestTimeMs);
    if (!is5xx) {
      t.times.push(facts.requestTimeMs);
      t.timeLines.push(lineNo);
      t.timeRoutes.push(routeOf(facts));
    }
  }
  const fresh = facts.requestTimeMs >= 0 && facts.requestTimeMs < freshBelowMs;
  for (let k = 0; k < facts.attempts; k++) {
    const address = facts.addr[k]!;
    const c = (t.byAddress[address] ??= { total: 0, fivexx: 0, badGateway: 0, fresh: 0 });
    c.total++;
    if (is5xx) c.fivexx++;
    if (facts.status === 502) c.badGateway++;
    if (fresh) c.fresh++;
  }
}

/**
 * The route of a request as the latency gate tells them apart: its method and first path segment
 * ("GET /users" for GET /users/42?x=1), few enough to gather requests per route, fine enough to
 * part a slow endpoint from a fast one; the segment alone when the format logs no method, '' when
 * it logs no request.
 */
export function routeOf(facts: LineFacts): string {
  if (facts.requestAt < 0) return '';
  const s = facts.src;
  const end = facts.requestEnd;
  let at = facts.requestAt;
  if (facts.uriIsRequestLine) {
    const space = s.indexOf(' ', at);
    if (space < 0 || space >= end) return '';
    at = space + 1;
  }
  // Up to the next '/', '?' or ' ' (the protocol); method, space and segment are one run of the line.
  let stop = at + 1;
  for (; stop < end; stop++) {
    const c = s.charCodeAt(stop);
    if (c === 47 || c === 63 || c === 32) break;
  }
  return s.slice(facts.requestAt, Math.min(stop, end));
}

/** Who a new instance is in the access log: the name it sends (behind a slot) or its address (reload path). */
export type NewInstanceKey = { instance: string } | { address: string };

/** The new instance's requests and the other instances' in one stretch of log. */
export interface InstanceWindows {
  mine: LogWindow;
  others: LogWindow;
  /** False when no line names an instance (an app that does not send the header): `mine` is every line. */
  separated: boolean;
}

/** A new instance's watch, as its lines arrive. */
export interface InstanceTally {
  add(text: string): void;
  look(): {
    /** Every line added (its `fresh` counts by `freshBelowMs`). */
    window: LogWindow;
    /** The new instance's requests and the others', over every line added. */
    split: InstanceWindows;
    /** The same, `exclude` left out of the others. */
    excluding: InstanceWindows;
  };
}

/**
 * One pass over each line for everything a watch looks at: the whole window, the new instance's
 * requests, the others', and the others' apart from `exclude` (this deploy's earlier new instances,
 * which run the same release: the 5xx gate compares with the release before only). Who answered is
 * the last upstream attempt (its status is the one the client got). Behind a slot `$upstream_addr`
 * names the slot, so the instance's own name is used; on the reload path its address. A log without
 * instance names cannot be split by name: the new instance's is then the whole window (the old
 * process behind the slot closes each connection after its next answer).
 */
export function tallyInstance(
  kit: LogReaderKit,
  freshBelowMs: number,
  key: NewInstanceKey,
  exclude: NewInstanceKey[] = [],
): InstanceTally {
  // A cache hit logs the instance name stored with the answer but reached no instance (no attempt):
  // it is neither the new process's answer nor the others'.
  const isMine: LinePick =
    'instance' in key
      ? (f) => f.attempts > 0 && f.instance === key.instance
      : (f) => f.attempts > 0 && f.addr[f.attempts - 1] === key.address;
  const excluded = exclude.map((k): LinePick =>
    'instance' in k
      ? (f) => f.instance === k.instance
      : (f) => f.attempts > 0 && f.addr[f.attempts - 1] === k.address,
  );
  const isOther: LinePick = (f) => f.attempts > 0 && !isMine(f);
  const tally = tallyWindows(kit, freshBelowMs, [
    () => true,
    isMine,
    isOther,
    (f) => isOther(f) && !excluded.some((x) => x(f)),
  ]);
  const none = summarizeLogWindow(kit, '');
  return {
    add: (text) => tally.add(text),
    look() {
      const [window, mine, others, rest] = tally.windows() as [LogWindow, LogWindow, LogWindow, LogWindow];
      // A log without instance names cannot be split by name: the new instance's is every line.
      if ('instance' in key && mine.named + others.named === 0) {
        const whole = { mine: window, others: none, separated: false };
        return { window, split: whole, excluding: whole };
      }
      return {
        window,
        split: { mine, others, separated: true },
        excluding: { mine, others: rest, separated: true },
      };
    },
  };
}
