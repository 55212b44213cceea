import { ProxyopsError } from '../../proxy-config/core/errors.js';
import type { ApiConfig } from '../defaults.js';
import type { Caller, ResourceContext } from '../resources/context.js';
import type { OrderEvents } from '../resources/order-events.js';
import type { Store } from '../store/store.js';
import { createLoaders, type Loaders } from './loaders.js';
import { createRequestStore, type RequestStore } from './request-store.js';

/** What every resolver receives: who asks, the operation's store and loaders, and its abort signal. */
export interface GraphqlContext {
  /** Absent for an anonymous request: public fields (`__typename`) still resolve. */
  caller?: Caller;
  requestId: string;
  baseUrl: string;
  store: RequestStore;
  config: ApiConfig;
  events?: OrderEvents;
  loaders: Loaders;
  signal: AbortSignal;
}

/** Inputs of one operation's context. */
export interface GraphqlContextInput {
  caller?: Caller;
  requestId: string;
  baseUrl: string;
  store: Store;
  config: ApiConfig;
  events?: OrderEvents;
  signal: AbortSignal;
  /** Subscriptions: batch without caching across events. */
  cache?: boolean;
  onQuery?: () => void;
}

/** Builds the context of one operation. */
export function createGraphqlContext(input: GraphqlContextInput): GraphqlContext {
  const store = createRequestStore(input.store, input.signal, input.onQuery);
  // Anonymous callers never reach a loader: every data field asks for credentials first.
  const caller = input.caller ?? { id: '', role: 'user' as const };
  return {
    ...(input.caller ? { caller: input.caller } : {}),
    requestId: input.requestId,
    baseUrl: input.baseUrl,
    store,
    config: input.config,
    ...(input.events ? { events: input.events } : {}),
    signal: input.signal,
    loaders: createLoaders({
      db: store,
      caller,
      baseUrl: input.baseUrl,
      ...(input.cache === undefined ? {} : { cache: input.cache }),
    }),
  };
}

/** The resource context of the REST functions; UNAUTHENTICATED for an anonymous caller. */
export function toResourceContext(ctx: GraphqlContext): ResourceContext {
  if (!ctx.caller) throw new ProxyopsError('UNAUTHENTICATED', 'this field needs a bearer token');
  return {
    user: ctx.caller,
    store: ctx.store,
    requestId: ctx.requestId,
    baseUrl: ctx.baseUrl,
    limits: ctx.config,
    ...(ctx.events ? { events: ctx.events } : {}),
  };
}
