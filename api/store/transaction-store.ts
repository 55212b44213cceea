import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { Queryable, Store } from './store.js';

/**
 * The store as seen from inside the open transaction `tx`: every statement joins it, and a
 * transaction begun through it is a savepoint, so a failing one undoes only its own part (as it
 * would on its own) while the outer transaction decides what is committed. Cancellation by signal
 * is not available here; the statement timeout still bounds each statement.
 */
export function storeInTransaction(tx: Queryable, kind: Store['kind']): Store {
  let savepoints = 0;
  return {
    kind,
    query: (sql, params) => tx.query(sql, params),
    async transaction(work) {
      const name = `nested_${++savepoints}`;
      await tx.query(`SAVEPOINT ${name}`);
      try {
        const result = await work(tx);
        await tx.query(`RELEASE SAVEPOINT ${name}`);
        return result;
      } catch (error) {
        await tx.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => undefined);
        throw error;
      }
    },
    exec: () => Promise.reject(new ProxyopsError('INTERNAL', 'exec is not available inside a transaction')),
    close: () => Promise.resolve(),
  };
}
