/** A blue/green stack under a real supervisord (see supervised-pairs.mjs). */
export interface SupervisedPairs {
  root: string;
  target: string;
  pairs: Record<string, [number, number]>;
  accessLog: string;
  /** Writes a spec whose start and stop hooks run `variant`'s supervisord programs; returns its path. */
  writeSpec(variant: string): string;
  supervisorctl(...args: string[]): string;
  /** Changes the environment of a variant named at the start (its programs must not be running). */
  setVariant(name: string, env: Record<string, string>): void;
  stop(): Promise<void>;
}
export function startSupervisedPairs(options: {
  cli: string;
  databaseUrl: string;
  hosts: readonly string[];
  /** Without it, no nginx is started (the caller runs its own). */
  nginxPort?: number;
  /** Programs beside `app`: name → environment added (for example a release 100 ms slower). */
  variants: Record<string, Record<string, string>>;
  /** The spec's deploy settings (watch, gates, …). */
  deploy?: Record<string, unknown>;
}): Promise<SupervisedPairs>;
