/**
 * The form of a request id that nginx passes on from a client and the API takes from nginx: a
 * token of at most 128 safe characters. Anything else (empty, too long, spaces, quotes, control
 * characters that could forge log lines) is replaced by a fresh id. One pattern for both layers,
 * so what nginx logs is what the API logs.
 */
export const REQUEST_ID_PATTERN = '^[A-Za-z0-9._:@/+=-]{1,128}$';
