import { isUtf8 } from 'node:buffer';
import type { Request as GraphqlHttpRequest, Response as GraphqlHttpResponse } from 'graphql-http';
import { ProxyopsError } from '../../../proxy-config/core/errors.js';

/**
 * The methods /graphql has: the same `Allow` on every answer that carries one, whatever was refused.
 * HEAD is there because GET is, and in the same place as on every REST path.
 */
export const GRAPHQL_ALLOW = 'GET, POST, HEAD, OPTIONS';

/** The envelope of one GraphQL-over-HTTP request, before the query text is resolved. */
export interface RawParams {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
  extensions?: unknown;
}

function header(req: GraphqlHttpRequest<unknown, unknown>, name: string): string {
  const headers = req.headers as Record<string, string | string[] | undefined>;
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

function badRequest(message: string): ProxyopsError {
  return new ProxyopsError('BAD_REQUEST', message);
}

function parseJsonParam(name: string, text: string | null): unknown {
  if (text === null || text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ProxyopsError('BAD_REQUEST', `the ${name} parameter is not valid JSON`, { cause: error });
  }
}

const isPlainObject = (value: unknown) =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the envelope from a GET query string or a POST JSON body, like graphql-http's own parser
 * but allowing a request with a persisted-query hash and no text. Returns the protocol's response
 * for a wrong method (405) or media type (415); throws BAD_REQUEST (400) for a malformed envelope.
 */
export async function readRequestParams(
  req: GraphqlHttpRequest<unknown, unknown>,
): Promise<RawParams | GraphqlHttpResponse> {
  let params: RawParams;
  if (req.method === 'GET') {
    const search = new URLSearchParams(req.url.split('?')[1] ?? '');
    // An empty parameter (`?query=&operationName=`, as form-built URLs send) is an absent one.
    const text = (name: string) => search.get(name) || undefined;
    params = {
      query: text('query'),
      operationName: text('operationName'),
      variables: parseJsonParam('variables', search.get('variables')),
      extensions: parseJsonParam('extensions', search.get('extensions')),
    };
  } else if (req.method === 'POST') {
    const [mediaType = '', ...rest] = header(req, 'content-type').toLowerCase().replace(/\s/g, '').split(';');
    const charset = rest.find((p) => p.startsWith('charset='));
    if (mediaType !== 'application/json' || (charset !== undefined && charset !== 'charset=utf-8'))
      return [
        null,
        { status: 415, statusText: 'Unsupported Media Type', headers: { accept: 'application/json' } },
      ];
    const raw = typeof req.body === 'function' ? await req.body() : req.body;
    const buffer = Buffer.isBuffer(raw) ? raw : Buffer.from(typeof raw === 'string' ? raw : '');
    if (buffer.length === 0) throw badRequest('the request body is empty');
    if (!isUtf8(buffer)) throw badRequest('the request body is not valid UTF-8');
    let body: unknown;
    try {
      body = JSON.parse(buffer.toString('utf8'));
    } catch (error) {
      throw new ProxyopsError('BAD_REQUEST', 'the request body is not valid JSON', { cause: error });
    }
    if (!isPlainObject(body)) throw badRequest('the request body must be a JSON object');
    params = body as RawParams;
  } else {
    return [null, { status: 405, statusText: 'Method Not Allowed', headers: { allow: GRAPHQL_ALLOW } }];
  }
  if (params.query !== undefined && typeof params.query !== 'string')
    throw badRequest('query must be a string');
  if (params.variables != null && !isPlainObject(params.variables))
    throw badRequest('variables must be an object');
  if (params.extensions != null && !isPlainObject(params.extensions))
    throw badRequest('extensions must be an object');
  if (params.operationName != null && typeof params.operationName !== 'string')
    throw badRequest('operationName must be a string');
  return params;
}
