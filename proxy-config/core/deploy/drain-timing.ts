/** The health-check settings the drain wait is computed from (seconds, as in the spec). */
export interface HealthCheckTiming {
  interval: number;
  failureThreshold: number;
  margin: number;
}

/** The drain wait and its parts, in whole milliseconds. */
export interface DrainTiming {
  /** interval × threshold: how long a balancer polling readiness needs to notice a failing instance. */
  detectMs: number;
  marginMs: number;
  /** detect + margin: the least time an old instance keeps serving after it starts failing readiness (§4.7 rule 2, §8). */
  waitMs: number;
}

const toMs = (seconds: number) => Math.round(seconds * 1000);

/** Drain wait = health-check interval × failure threshold + margin (conventions §4.7 rule 2). */
export function planDrainTiming(check: HealthCheckTiming): DrainTiming {
  const detectMs = toMs(check.interval) * check.failureThreshold;
  const marginMs = toMs(check.margin);
  return { detectMs, marginMs, waitMs: detectMs + marginMs };
}

/** `1.5 s` / `400 ms`: a wait as people read it. */
export function formatWait(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(3))} s`;
}
