import { randomUUID } from 'node:crypto';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';
import { MAX_KEY_LENGTH, parseIdempotencyKey } from '../../../api/idempotency/idempotency-key.js';
import { runOnce } from '../../../api/idempotency/run-once.js';
import { API_DEFAULTS } from '../../../api/defaults.js';
import { buildOpenApi } from '../../../api/http/openapi.js';
import { STORE_VARIANTS, startTestApi, type TestApi } from '../support/harness.js';
import { sendJson, type TestResponse } from '../support/http-client.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const ORDER = { items: [{ productName: 'Widget', quantity: 2, unitPrice: 9.5 }] };
const OTHER_ORDER = { items: [{ productName: 'Gadget', quantity: 1, unitPrice: 3 }] };

const keyed = (key: string, extra: Record<string, string> = {}) => ({
  'idempotency-key': `"${key}"`,
  ...extra,
});

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isProxyopsError(error) ? error.code : 'not a ProxyopsError';
  }
  return undefined;
}

describe('parseIdempotencyKey (the draft: a Structured Field String)', () => {
  it('reads a quoted string with its escapes, and a bare token as the same key', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey('"a \\"quoted\\" \\\\ key"')).toBe('a "quoted" \\ key');
  });

  it.each([
    ['empty', '""'],
    ['two keys (a repeated header)', '"a", "b"'],
    ['a space in a bare token', 'a b'],
    ['an unterminated string', '"abc'],
    ['non-ASCII', '"clé"'],
    ['too long', `"${'k'.repeat(MAX_KEY_LENGTH + 1)}"`],
    ['two values in one header', 'x,y'],
    ['a bare token over the length', 'k'.repeat(MAX_KEY_LENGTH + 1)],
  ])('refuses %s as IDEMPOTENCY_KEY_INVALID', (_why, header) => {
    expect(codeOf(() => parseIdempotencyKey(header))).toBe('IDEMPOTENCY_KEY_INVALID');
  });
});

describe('the OpenAPI document states the server’s rule for Idempotency-Key', () => {
  const doc = buildOpenApi(API_DEFAULTS) as {
    paths: Record<string, Record<string, { parameters?: Array<{ name: string; schema: object }> }>>;
  };
  const keyed = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method === 'post' || method === 'patch')
      .map(([method, op]) => ({ at: `${method} ${path}`, op })),
  );
  const accepts = (header: string) => codeOf(() => parseIdempotencyKey(header)) === undefined;

  it('every write, REST and GraphQL, documents the header with the schema the server decides by', () => {
    expect(keyed.map((k) => k.at)).toEqual(expect.arrayContaining(['post /orders', 'post /graphql']));
    const schemas = keyed.map(({ at, op }) => ({
      at,
      schema: op.parameters?.find((p) => p.name === 'Idempotency-Key')?.schema,
    }));
    for (const { at, schema } of schemas) expect(schema, at).toEqual(schemas[0]!.schema);
  });

  it('the document refuses exactly the keys the server refuses (by its own schema, with ajv)', () => {
    const schema = keyed[0]!.op.parameters!.find((p) => p.name === 'Idempotency-Key')!.schema;
    const validate = addFormats(new Ajv({ strict: false })).compile(schema);
    const fixed = [
      '"8e03978e-40d5-43e8-bc93-6894a57f9324"',
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
      '"a \\"quoted\\" \\\\ key"',
      '"x,y"',
      'x,y',
      '_ t',
      '""',
      '"',
      '"abc',
      '"clé"',
      'clé',
      'k'.repeat(MAX_KEY_LENGTH),
      'k'.repeat(MAX_KEY_LENGTH + 1),
      `"${'\\"'.repeat(MAX_KEY_LENGTH)}"`,
      `"${'\\"'.repeat(MAX_KEY_LENGTH + 1)}"`,
      '"a\\b"',
      '"tab\there"',
    ];
    for (const header of fixed) expect(validate(header), header).toBe(accepts(header));
    // Generated the way a fuzzer does: from the pattern, and from the characters at its edges.
    const edges = fc.string({
      unit: fc.constantFrom('"', '\\', ',', ' ', 'a', 'Z', '~', '!', '\t', 'é', '\u007f'),
      maxLength: 12,
    });
    const tokens = fc.oneof(
      edges,
      edges.map((inner) => `"${inner}"`),
      fc.stringMatching(new RegExp((schema as { pattern: string }).pattern)),
    );
    fc.assert(
      fc.property(tokens, (header) => {
        // A field value never starts or ends with white space: HTTP parsers strip it.
        fc.pre(!/^[ \t]|[ \t]$/.test(header));
        expect(validate(header), JSON.stringify(header)).toBe(accepts(header));
      }),
      { numRuns: 2000, seed: 39 },
    );
  });
});

describe.each(STORE_VARIANTS)('Idempotency-Key on REST writes ($name)', (variant) => {
  let api: TestApi;
  let user: { id: string; token: string };
  beforeAll(async () => {
    api = await startTestApi(variant);
    user = await api.createUser();
  });
  afterAll(() => api?.close());

  const ordersOf = async (userId: string) =>
    Number(
      (
        await api.store.query<{ n: string }>('SELECT count(*) AS n FROM orders WHERE user_id = $1', [userId])
      )[0]?.n,
    );
  const post = (key: string, body: unknown, token = user.token) =>
    sendJson(`${api.url}/orders`, 'POST', body, { token, headers: keyed(key) });

  it('a repeat with the same key and body gets the stored response; the order is placed once', async () => {
    const before = await ordersOf(user.id);
    const key = randomUUID();
    const first = await post(key, ORDER);
    const again = await post(key, ORDER);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    for (const header of ['location', 'etag', 'content-type'])
      expect(again.headers[header], header).toBe(first.headers[header]);
    expect(await ordersOf(user.id)).toBe(before + 1);
  });

  it('the same key with another body is 422 IDEMPOTENCY_KEY_REUSED and does nothing', async () => {
    const key = randomUUID();
    expect((await post(key, ORDER)).status).toBe(201);
    const before = await ordersOf(user.id);
    const reused = await post(key, OTHER_ORDER);
    expect(reused.status).toBe(422);
    expect(reused.headers['content-type']).toContain('application/problem+json');
    expect(reused.json()).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      type: 'urn:proxyops:problem:idempotency-key-reused',
    });
    expect(await ordersOf(user.id)).toBe(before);
  });

  it('a client error is stored and replayed too (the draft: "success or an error")', async () => {
    const key = randomUUID();
    const bad = { items: [] };
    const first = await post(key, bad);
    expect(first.status).toBe(422);
    expect(first.json().code).toBe('VALIDATION_FAILED');
    const again = await post(key, bad);
    expect(again.status).toBe(422);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
  });

  it('keys are per caller: another user with the same key and body places their own order', async () => {
    const key = randomUUID();
    const other = await api.createUser();
    const mine = await post(key, ORDER);
    const theirs = await post(key, ORDER, other.token);
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().id).not.toBe(mine.json().id);
    expect(await ordersOf(other.id)).toBe(1);
  });

  it('a PATCH with a key is applied once: its repeat replays 200, not 409 for the stale If-Match', async () => {
    const created = (await post(randomUUID(), ORDER)).json<{ id: string }>();
    const key = randomUUID();
    const patch = (): Promise<TestResponse> =>
      sendJson(
        `${api.url}/orders/${created.id}`,
        'PATCH',
        { status: 'PAID' },
        { token: user.token, headers: keyed(key, { 'if-match': '"v1"' }) },
      );
    const first = await patch();
    expect(first.status).toBe(200);
    expect(first.headers.etag).toBe('"v2"');
    const again = await patch();
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.etag).toBe('"v2"');
    const rows = await api.store.query<{ version: number }>('SELECT version FROM orders WHERE id = $1', [
      created.id,
    ]);
    expect(rows[0]?.version).toBe(2);
  });

  it('a malformed key is 400 IDEMPOTENCY_KEY_INVALID and places nothing', async () => {
    const before = await ordersOf(user.id);
    for (const key of ['""', 'x,y', '_ t']) {
      const res = await sendJson(`${api.url}/orders`, 'POST', ORDER, {
        token: user.token,
        headers: { 'idempotency-key': key },
      });
      expect(res.status, key).toBe(400);
      expect(res.json().code).toBe('IDEMPOTENCY_KEY_INVALID');
    }
    expect(await ordersOf(user.id)).toBe(before);
  });

  it('an expired key is forgotten: it may be used again, for anything', async () => {
    const request = { owner: user.id, key: randomUUID() };
    const policy = { ttlMs: 1_000, leaseMs: 30_000 };
    const answer = (body: string) => async () => ({ status: 201, headers: {}, body });
    const first = await runOnce(api.store, { ...request, fingerprint: 'a' }, policy, answer('first'));
    expect(first).toEqual({ replayed: false, response: { status: 201, headers: {}, body: 'first' } });
    await expect(
      runOnce(api.store, { ...request, fingerprint: 'b' }, policy, answer('second')),
    ).rejects.toThrow(/different request/);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const reused = await runOnce(api.store, { ...request, fingerprint: 'b' }, policy, answer('second'));
    expect(reused).toEqual({ replayed: false, response: { status: 201, headers: {}, body: 'second' } });
  });
});
