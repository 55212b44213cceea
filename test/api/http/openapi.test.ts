import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_KINDS } from '../../../api/http/problem.js';
import { ROUTES } from '../../../api/http/routes.js';
import { send } from '../support/http-client.js';
import { startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

describe('error code table', () => {
  it('pins every code to its status: clients and dashboards depend on them', () => {
    const pinned = Object.fromEntries(
      Object.entries(PROBLEM_KINDS).map(([code, kind]) => [code, kind.status]),
    );
    expect(pinned).toEqual({
      MALFORMED_JSON: 400,
      BAD_PARAMETER: 400,
      BAD_REQUEST: 400,
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      METHOD_NOT_ALLOWED: 405,
      NOT_ACCEPTABLE: 406,
      EMAIL_TAKEN: 409,
      PRECONDITION_FAILED: 409,
      ORDER_TRANSITION_INVALID: 409,
      ORDER_STATE_CONFLICT: 409,
      BODY_TOO_LARGE: 413,
      UNSUPPORTED_MEDIA_TYPE: 415,
      VALIDATION_FAILED: 422,
      REQUEST_TIMEOUT: 408,
      RATE_LIMITED: 429,
      HEADERS_TOO_LARGE: 431,
      INTERNAL: 500,
      IDEMPOTENCY_KEY_INVALID: 400,
      IDEMPOTENCY_KEY_REUSED: 422,
      IDEMPOTENCY_KEY_IN_FLIGHT: 409,
      NOT_READY: 503,
      DATABASE_UNAVAILABLE: 503,
    });
  });
});

describe.each(STORE_VARIANTS.slice(0, 1))('GET /openapi.json ($name)', (variant) => {
  let api: TestApi;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let doc: any;
  beforeAll(async () => {
    api = await startTestApi(variant, { config: { pageSizeMax: 42 } });
    const res = await send(`${api.url}/openapi.json`);
    expect(res.status).toBe(200);
    doc = res.json();
  });
  afterAll(() => api?.close());

  it('is OpenAPI 3.1 and describes every route with its success and failure statuses', () => {
    expect(doc.openapi).toBe('3.1.0');
    for (const route of ROUTES) {
      const operation = doc.paths[route.path]?.[route.method];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(Object.keys(operation.responses)).toEqual(
        expect.arrayContaining([String(route.success), ...route.errors.map(String), '401']),
      );
    }
    for (const probe of ['/health/live', '/health/ready', '/health/deep'])
      expect(doc.paths[probe].get).toBeDefined();
  });

  it('uses the very schemas that validate requests, and the configured page bound', () => {
    for (const route of ROUTES.filter((r) => r.body)) {
      const ref = doc.paths[route.path][route.method].requestBody.content['application/json'].schema.$ref;
      const name = ref.split('/').pop();
      const { $id: _id, ...validating } = route.body as Record<string, unknown>;
      expect(doc.components.schemas[name]).toEqual(JSON.parse(JSON.stringify(validating)));
    }
    const limit = doc.paths['/users'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema.maximum).toBe(42);
  });
});
