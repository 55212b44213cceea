import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { Queryable, Store } from '../store/store.js';

/** A store seen by one GraphQL operation: it counts the queries run and refuses any after an abort. */
export interface RequestStore extends Store {
  /** Statements run so far for this operation. */
  readonly queryCount: number;
}

function stopped(signal: AbortSignal): ProxyopsError {
  return new ProxyopsError('TIMEOUT', 'the operation ran out of time and was stopped', {
    cause: signal.reason,
  });
}

/**
 * Wraps the shared store for one operation. `signal` goes into every statement (so PostgreSQL
 * cancels a running one) and is checked before each, inside transactions too: once the operation
 * has timed out no further work starts.
 */
export function createRequestStore(store: Store, signal: AbortSignal, onQuery?: () => void): RequestStore {
  let count = 0;
  const before = () => {
    if (signal.aborted) throw stopped(signal);
    count++;
    onQuery?.();
  };
  const wrapTx = (tx: Queryable): Queryable => ({
    query<Row>(sql: string, params?: readonly unknown[]) {
      before();
      return tx.query<Row>(sql, params);
    },
  });
  return {
    kind: store.kind,
    get queryCount() {
      return count;
    },
    async query<Row>(sql: string, params?: readonly unknown[]) {
      before();
      try {
        return await store.query<Row>(sql, params, { signal });
      } catch (error) {
        if (signal.aborted) throw stopped(signal);
        throw error;
      }
    },
    transaction(work) {
      if (signal.aborted) return Promise.reject(stopped(signal));
      return store.transaction(async (tx) => {
        const result = await work(wrapTx(tx));
        // Past the deadline nothing is committed: the client has already been told TIMEOUT.
        if (signal.aborted) throw stopped(signal);
        return result;
      });
    },
    exec: () => Promise.reject(new ProxyopsError('INTERNAL', 'exec is not available to GraphQL operations')),
    close: () => Promise.resolve(),
  };
}
