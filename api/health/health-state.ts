/** Where the instance is in its life: readiness answers 200 only while `ready`. */
export type Phase = 'starting' | 'ready' | 'draining';

/** Mutable phase shared by the server (which moves it) and the health endpoints (which report it). */
export interface HealthState {
  phase: Phase;
}

/** A new instance starts in `starting`: no traffic until its dependencies are open. */
export function createHealthState(phase: Phase = 'starting'): HealthState {
  return { phase };
}
