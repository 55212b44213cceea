import { describe, expect, it } from 'vitest';
import {
  isCancellable,
  ORDER_STATES,
  ORDER_TRANSITIONS,
  planOrderTransition,
} from '../../../api/resources/order-states.js';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';

const codeOf = (run: () => unknown) => {
  try {
    run();
    return 'ok';
  } catch (error) {
    return isProxyopsError(error) ? error.code : 'unexpected';
  }
};

describe('order state machine', () => {
  it('every transition joins two known states and none leaves a final state', () => {
    for (const t of ORDER_TRANSITIONS) {
      expect(ORDER_STATES).toContain(t.from);
      expect(ORDER_STATES).toContain(t.to);
    }
    expect(ORDER_TRANSITIONS.filter((t) => t.from === 'DELIVERED' || t.from === 'CANCELLED')).toEqual([]);
  });

  it('every state is reachable from PENDING', () => {
    const reached = new Set(['PENDING']);
    for (let changed = true; changed;) {
      changed = false;
      for (const t of ORDER_TRANSITIONS)
        if (reached.has(t.from) && !reached.has(t.to)) changed = reached.add(t.to).size > 0;
    }
    expect([...reached].sort()).toEqual([...ORDER_STATES].sort());
  });

  it('plans listed moves, refuses unlisted ones (409) and admin-only moves by users (403)', () => {
    for (const t of ORDER_TRANSITIONS) {
      expect(codeOf(() => planOrderTransition(t.from, t.to, 'admin'))).toBe('ok');
      expect(codeOf(() => planOrderTransition(t.from, t.to, 'user'))).toBe(
        t.by === 'owner' ? 'ok' : 'FORBIDDEN',
      );
    }
    for (const from of ORDER_STATES)
      for (const to of ORDER_STATES)
        if (!ORDER_TRANSITIONS.some((t) => t.from === from && t.to === to))
          expect(codeOf(() => planOrderTransition(from, to, 'admin'))).toBe('ORDER_TRANSITION_INVALID');
  });

  it('only PENDING orders are cancellable (and carry the cancel link)', () => {
    expect(ORDER_STATES.filter(isCancellable)).toEqual(['PENDING']);
  });
});
