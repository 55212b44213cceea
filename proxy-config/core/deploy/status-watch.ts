/** Verdict of comparing the status codes since a step with those before the deploy. */
export interface StatusVerdict {
  /**
   * `regressed`: the 5xx share rose by more than the threshold; `not-judged`: the new instance answered
   * too few requests to judge by the end of the watch; `ok` otherwise (also with no threshold).
   */
  verdict: 'ok' | 'regressed' | 'not-judged';
  /** after.share5xx − before.share5xx (may be negative). */
  increase: number;
  /** Why the verdict could not be `regressed` yet, when it could not. */
  note?: 'no-threshold' | 'too-few-requests';
}

/** Early decisions (while a window is still open) need this many requests; the end of a window decides on any. */
export const EARLY_DECISION_REQUESTS = 20;
