/** Carries serialized order events between API instances; each instance also receives its own. */
export interface EventTransport {
  readonly kind: 'memory' | 'postgres' | 'redis';
  /** Resolves once the instance listens: events published after it are received. */
  ready: Promise<void>;
  send(message: string): Promise<void>;
  /** Calls `receive` for every message any instance sends. */
  onMessage(receive: (message: string) => void): void;
  close(): Promise<void>;
}

/** A transport within one process: nothing crosses to another instance (embedded PGlite). */
export function createMemoryTransport(): EventTransport {
  return {
    kind: 'memory',
    ready: Promise.resolve(),
    send: () => Promise.resolve(),
    onMessage: () => undefined,
    close: () => Promise.resolve(),
  };
}
