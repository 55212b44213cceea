import { IDEMPOTENCY_KEY_PATTERN, MAX_HEADER_LENGTH } from '../idempotency/idempotency-key.js';

/**
 * The `Idempotency-Key` header of every write (REST POST and PATCH, POST /graphql): its schema is the
 * server's own rule, so a client validator refuses exactly the values the server answers 400.
 */
export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A quoted string unique to this write (e.g. a UUID), or the same key as a bare token; a repeat ' +
    'with the same key and request gets the stored response (Idempotent-Replayed: true) without the ' +
    'work being done again. One key only: two values (`x,y`) are 400',
  schema: { type: 'string', minLength: 1, maxLength: MAX_HEADER_LENGTH, pattern: IDEMPOTENCY_KEY_PATTERN },
};
