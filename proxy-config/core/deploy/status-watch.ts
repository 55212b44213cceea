/** Verdict of comparing the status codes since a step with those before the deploy. */
export interface StatusVerdict {
  /**
   * `regressed`: the watch failed (an exit, readiness, a 502 naming the new instance, or a gate: the
   * status event's `gate`, `reason`); `not-judged`: the new instance answered too few requests to judge
   * by the end of the watch; `ok` otherwise.
   */
  verdict: 'ok' | 'regressed' | 'not-judged';
  /**
   * The rise the 5xx gate judged: the new instance's 5xx share minus its comparison's (`fivexx`);
   * without a 5xx verdict (readiness-only), the whole window's share minus the log before's. May be negative.
   */
  increase: number;
  /** Why the verdict could not be `regressed` yet, when it could not. */
  note?: 'no-threshold' | 'too-few-requests';
}

/** Early decisions (while a window is still open) need this many requests; the end of a window decides on any. */
export const EARLY_DECISION_REQUESTS = 20;
