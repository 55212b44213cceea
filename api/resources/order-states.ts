import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { Role } from './context.js';

/** Every state an order can be in; new orders start at PENDING. */
export const ORDER_STATES = ['PENDING', 'PAID', 'SHIPPED', 'DELIVERED', 'CANCELLED'] as const;

/** One order state. */
export type OrderState = (typeof ORDER_STATES)[number];

/** One allowed move of the order state machine and who may make it. */
export interface OrderTransition {
  from: OrderState;
  to: OrderState;
  /** `owner`: the order's user or an admin; `admin`: admins only. */
  by: 'owner' | 'admin';
}

/** The order state machine, as data: a move not listed here is a 409. */
export const ORDER_TRANSITIONS: readonly OrderTransition[] = [
  { from: 'PENDING', to: 'PAID', by: 'owner' },
  { from: 'PENDING', to: 'CANCELLED', by: 'owner' },
  { from: 'PAID', to: 'SHIPPED', by: 'admin' },
  { from: 'PAID', to: 'CANCELLED', by: 'admin' },
  { from: 'SHIPPED', to: 'DELIVERED', by: 'admin' },
];

/** True when an order in `state` may still be cancelled by its owner (the `cancel` link). */
export function isCancellable(state: string): boolean {
  return state === 'PENDING';
}

/** Checks a state change; throws ORDER_TRANSITION_INVALID (409) or FORBIDDEN (403). */
export function planOrderTransition(from: string, to: OrderState, role: Role): OrderTransition {
  const transition = ORDER_TRANSITIONS.find((t) => t.from === from && t.to === to);
  if (!transition) {
    const allowed = ORDER_TRANSITIONS.filter((t) => t.from === from).map((t) => t.to);
    throw new ProxyopsError(
      'ORDER_TRANSITION_INVALID',
      `an order in state ${from} cannot move to ${to}` +
        (allowed.length ? `; allowed: ${allowed.join(', ')}` : '; it is final'),
    );
  }
  if (transition.by === 'admin' && role !== 'admin')
    throw new ProxyopsError('FORBIDDEN', `only an admin may move an order from ${from} to ${to}`);
  return transition;
}
