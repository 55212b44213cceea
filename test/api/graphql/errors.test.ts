import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ProxyopsError } from '../../../proxy-config/core/errors.js';
import { createErrorFormatter, formatGraphqlError, GRAPHQL_CODES } from '../../../api/graphql/errors.js';

const wrap = (original: Error) =>
  new GraphQLError(original.message, { originalError: original, path: ['me'] });

describe('GraphQL error codes', () => {
  it('map every resource code through one pinned table', () => {
    expect(GRAPHQL_CODES).toEqual({
      UNAUTHENTICATED: 'UNAUTHENTICATED',
      FORBIDDEN: 'FORBIDDEN',
      NOT_FOUND: 'NOT_FOUND',
      VALIDATION_FAILED: 'BAD_USER_INPUT',
      BAD_PARAMETER: 'BAD_USER_INPUT',
      BAD_REQUEST: 'BAD_REQUEST',
      MALFORMED_JSON: 'BAD_REQUEST',
      UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
      EMAIL_TAKEN: 'CONFLICT',
      PRECONDITION_FAILED: 'CONFLICT',
      ORDER_TRANSITION_INVALID: 'CONFLICT',
      ORDER_STATE_CONFLICT: 'CONFLICT',
      RATE_LIMITED: 'RATE_LIMITED',
      TIMEOUT: 'TIMEOUT',
      DATABASE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
    });
  });

  it('keep a resource error message, its REST code as reason and its field errors', () => {
    const error = new ProxyopsError('VALIDATION_FAILED', 'bad body', {
      details: { errors: [{ pointer: '/items', message: 'is required' }] },
    });
    const formatted = formatGraphqlError(wrap(error), 'req-1');
    expect(formatted.message).toBe('bad body');
    expect(formatted.path).toEqual(['me']);
    expect(formatted.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'VALIDATION_FAILED',
      fieldErrors: [{ pointer: '/items', message: 'is required' }],
      requestId: 'req-1',
    });
  });

  it('hide an unknown fault behind INTERNAL_SERVER_ERROR and hand it to the log', () => {
    const logged: unknown[] = [];
    const fault = new Error('connection string postgres://secret');
    const formatted = createErrorFormatter('req-2', (e) => logged.push(e))(wrap(fault));
    expect(formatted.message).not.toContain('secret');
    expect(formatted.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR', requestId: 'req-2' });
    expect(logged).toEqual([fault]);
  });

  it('report a statement PostgreSQL cancelled (57014) as TIMEOUT, and name parse and validation errors', () => {
    const cancelled = Object.assign(new Error('canceling statement due to user request'), { code: '57014' });
    expect(formatGraphqlError(wrap(cancelled), 'r').extensions.code).toBe('TIMEOUT');
    expect(formatGraphqlError(new GraphQLError('Syntax Error: Expected Name'), 'r').extensions.code).toBe(
      'GRAPHQL_PARSE_FAILED',
    );
    expect(formatGraphqlError(new GraphQLError('Cannot query field "x"'), 'r').extensions.code).toBe(
      'GRAPHQL_VALIDATION_FAILED',
    );
  });

  it('are each in the table of docs/graphql.md, which names no other', () => {
    const root = join(import.meta.dirname, '../../..');
    const sources = (dir: string) =>
      (readdirSync(join(root, dir), { recursive: true }) as string[])
        .filter((file) => file.endsWith('.ts'))
        .map((file) => readFileSync(join(root, dir, file), 'utf8'));
    const literals = (text: string) => [...text.matchAll(/'([A-Z][A-Z_]+)'/g)].map((m) => m[1] as string);
    // Codes the GraphQL layer sets itself: the first argument of createGraphqlError, and every
    // literal on a line that sends errors or sets a code.
    const own = sources('api/graphql').flatMap((text) => [
      ...[...text.matchAll(/createGraphqlError\(\s*'([A-Z][A-Z_]+)'/g)].map((m) => m[1] as string),
      ...text
        .split('\n')
        .filter((line) => /sendErrors\(|\bcode\s*(?:=(?!=)|:)/.test(line))
        .flatMap(literals),
    ]);
    // Errors of the request's reading and its Idempotency-Key reach the router's error handler,
    // which sends a code through GRAPHQL_CODES or, when it has none there, as it is.
    const passed = [...sources('api/idempotency'), readFileSync(join(root, 'api/http/problem.ts'), 'utf8')]
      .flatMap((text) => [...text.matchAll(/new ProxyopsError\(\s*'([A-Z][A-Z_]+)'/g)])
      .map((m) => GRAPHQL_CODES[m[1] as string] ?? (m[1] as string));
    const emitted = new Set([...own, ...passed, ...Object.values(GRAPHQL_CODES)]);
    const doc = readFileSync(join(root, 'docs/graphql.md'), 'utf8');
    const table = doc.slice(doc.indexOf('| `extensions.code` | when |')).split('\n\n')[0] ?? '';
    const documented = new Set(
      table
        .split('\n')
        .flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z_]+)`/g)].map((m) => m[1])),
    );
    expect([...documented].sort()).toEqual([...emitted].sort());
  });
});
