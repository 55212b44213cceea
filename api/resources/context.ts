import type { Store } from '../store/store.js';
import type { OrderEvents } from './order-events.js';

/** Roles a caller may hold: `user` sees and changes only their own data, `admin` everything. */
export type Role = 'user' | 'admin';

/** The authenticated caller, as proven by a verified token. */
export interface Caller {
  id: string;
  role: Role;
}

/** Settings resource functions need that come from configuration, not from the request. */
export interface ResourceLimits {
  pageSizeDefault: number;
  pageSizeMax: number;
}

/**
 * What every resource function receives besides its input. Nothing in here is HTTP-specific, so the
 * REST layer and the GraphQL layer call the same functions.
 */
export interface ResourceContext {
  user: Caller;
  store: Store;
  requestId: string;
  /** Scheme and host the client used (`https://api.example.com`), for absolute links. */
  baseUrl: string;
  limits: ResourceLimits;
  events?: OrderEvents;
}
