import { GraphQLError } from 'graphql';
import { formatGraphqlError } from '../errors.js';

/** Codes of the refusals graphql-http makes before any operation runs, by HTTP status. */
const REFUSALS: Readonly<Record<number, { code: string; message: string }>> = {
  405: { code: 'METHOD_NOT_ALLOWED', message: 'GraphQL takes GET (queries only) and POST' },
  406: {
    code: 'NOT_ACCEPTABLE',
    message: 'GraphQL answers application/graphql-response+json or application/json',
  },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'a GraphQL POST body must be application/json' },
};

/**
 * graphql-http answers some refusals with an empty body (405, 406, 415) or with errors that carry no
 * code or request id (a mutation over GET). Gives each the same shape as every other GraphQL error:
 * `{ errors: [{ message, extensions: { code, requestId } }] }`. Undefined when the body already has it.
 */
export function explainRefusal(status: number, body: string | null, requestId: string): string | undefined {
  const refusal = REFUSALS[status];
  if (!refusal) return undefined;
  let messages: string[] = [];
  if (body) {
    let parsed: { errors?: Array<{ message?: unknown; extensions?: { code?: unknown } }> } | undefined;
    try {
      parsed = JSON.parse(body) as typeof parsed;
    } catch {
      parsed = undefined;
    }
    const errors = parsed?.errors ?? [];
    if (errors.length > 0 && errors.every((e) => typeof e.extensions?.code === 'string')) return undefined;
    messages = errors.map((e) => e.message).filter((m): m is string => typeof m === 'string');
  }
  const errors = (messages.length > 0 ? messages : [refusal.message]).map((message) =>
    formatGraphqlError(new GraphQLError(message, { extensions: { code: refusal.code } }), requestId),
  );
  return JSON.stringify({ errors });
}
