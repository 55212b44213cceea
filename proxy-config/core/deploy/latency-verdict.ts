import { judgeEffect, type EffectRule, type EffectVerdict } from './effect-size.js';
import { firstWarmSlice, sameStretch, sliceRequests, type TimedSample, type WarmUpRule } from './warm-up.js';

/** The whole latency rule: when the new instance is warm, what counts as slower, and for how long. */
export interface LatencyRule extends WarmUpRule, Omit<EffectRule, 'maxRatio'> {
  /** Slower in this many consecutive warm slices before a rollback (Argo Rollouts' and Flagger's failure limit). */
  consecutive: number;
  /** The other instances must have answered this many requests over a slice's stretch to be its comparison. */
  minPeerRequests: number;
}

/**
 * Defaults from `bench:gates` and the busy-core deploy test: with one core of two kept busy, a new
 * process of an unchanged version answered its requests 101 to 260 at 26 ms against its warm peers'
 * 4 ms (2.6x the 10 ms floor) and was rolled back 4 times of 4 by a fixed warm-up of 100 requests.
 */
export const DEFAULT_LATENCY_RULE: LatencyRule = {
  minWarmupRequests: 100,
  sliceRequests: 50,
  levelRatio: 1.25,
  consecutive: 2,
  alpha: 0.001,
  medianFloorMs: 10,
  minEffectMs: 40,
  minPeerRequests: 20,
};

/** One slice as the gate judged it. */
export interface JudgedSlice extends EffectVerdict {
  /** The new instance's requests in it, 1-based and inclusive (its 101st to its 150th). */
  requests: [number, number];
  against: 'others' | 'before';
  /** False for a slice of its warm-up. */
  judged: boolean;
}

/** Everything the latency verdict rests on, for the status event and the fired gate's text. */
export interface LatencyEvidence {
  verdict: 'slower' | 'not slower' | 'not judged';
  /** Why it could not judge, when it could not. */
  note?: string;
  /** Request times: the new instance's, the other instances' in the window, the log's before the deploy. */
  samples: { mine: number; others: number; before: number };
  /** The new instance's first requests left out as its warm-up (all of them while it never levelled off). */
  warmupCut: number;
  slices: JudgedSlice[];
  /** The slices that fired the gate (1-based), when it fired. */
  fired?: number[];
  rule: LatencyRule & { maxRatio: number };
}

/**
 * Judges the new instance's request times (`mine`) slice by slice against the other instances' over
 * each slice's stretch of log, or the log before the deploy where they answered too few there. It is
 * slower when `consecutive` warm slices in a row are slower by the effect rule (judgeEffect); the
 * warm-up ends where its latency relative to the comparison levels off (firstWarmSlice), so a cold
 * process on a busy core is judged once it is warm, and a release slow from its first request at once.
 */
export function judgeLatencySlices(
  before: readonly number[],
  mine: TimedSample,
  others: TimedSample,
  maxRatio: number,
  rule: LatencyRule = DEFAULT_LATENCY_RULE,
): LatencyEvidence {
  const effect = { ...rule, maxRatio };
  const verdicts = sliceRequests(mine.ms.length, rule).map((slice) => {
    const peers = sameStretch(mine, slice, others);
    const against = peers.length >= rule.minPeerRequests ? 'others' : 'before';
    return {
      requests: [slice.from + 1, slice.to] as [number, number],
      against,
      ...judgeEffect(mine.ms.slice(slice.from, slice.to), against === 'others' ? peers : before, effect),
    } as const;
  });
  const warmAt = firstWarmSlice(
    verdicts.map((v) => v.ratio),
    rule,
  );
  const slices = verdicts.map((v, i) => ({ ...v, judged: warmAt !== undefined && i >= warmAt }));
  const base = {
    samples: { mine: mine.ms.length, others: others.ms.length, before: before.length },
    warmupCut: warmAt === undefined ? mine.ms.length : warmAt * rule.sliceRequests,
    slices,
    rule: effect,
  };
  if (before.length < rule.minPeerRequests && others.ms.length < rule.minPeerRequests)
    return { ...base, verdict: 'not judged', note: 'no request times to compare with' };
  const needed = rule.minWarmupRequests + rule.consecutive * rule.sliceRequests;
  const tooFew = `${mine.ms.length} request times, ${needed} needed`;
  if (warmAt === undefined)
    return {
      ...base,
      verdict: 'not judged',
      note:
        mine.ms.length < needed ? tooFew : 'its latency was still falling slice after slice (not warm yet)',
    };
  let run = 0;
  for (let i = warmAt; i < slices.length; i++) {
    run = slices[i]!.slower ? run + 1 : 0;
    if (run === rule.consecutive)
      return {
        ...base,
        verdict: 'slower',
        fired: Array.from({ length: run }, (_, k) => i - run + k + 2),
      };
  }
  const judged = slices.length - warmAt;
  if (judged >= rule.consecutive) return { ...base, verdict: 'not slower' };
  const note = mine.ms.length < needed ? tooFew : `${judged} warm slice(s), ${rule.consecutive} needed`;
  return { ...base, verdict: 'not judged', note };
}

/** One line for people: the slices that fired, their medians, ratio, effect and p, against the limits. */
export function describeSlower(evidence: LatencyEvidence): string {
  const { rule } = evidence;
  const fired = (evidence.fired ?? []).map((n) => evidence.slices[n - 1]!);
  const first = fired[0]!;
  const last = fired.at(-1)!;
  const each = fired
    .map(
      (s) =>
        `${s.medians.against} → ${s.medians.mine} ms (${s.ratio.toFixed(2)}x, +${s.effectMs} ms, fastest tenth +${s.fastShiftMs} ms, p = ${s.p.toExponential(1)})`,
    )
    .join('; ');
  const against =
    last.against === 'others' ? 'the other instances over the same stretch' : 'the log before the deploy';
  return `median request time rose in ${fired.length} consecutive slices of ${rule.sliceRequests} requests (its requests ${first.requests[0]}–${last.requests[1]}, after a warm-up of ${evidence.warmupCut}), against ${against}: ${each}; limits ${rule.maxRatio}x and +${rule.minEffectMs} ms for the median and the fastest tenth (medians under ${rule.medianFloorMs} ms count as ${rule.medianFloorMs}), Mann-Whitney U p < ${rule.alpha}`;
}
