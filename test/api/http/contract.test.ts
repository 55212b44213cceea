import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../../api/http/routes.js';
import { validateBody } from '../../../api/resources/validate.js';
import { USER_PATCH_SCHEMA } from '../../../api/resources/schemas.js';
import { send, sendJson } from '../support/http-client.js';
import { startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

/** Every `pattern` in a document, with where it is. */
function patternsOf(value: unknown, at = ''): Array<{ at: string; pattern: string }> {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === 'pattern' && typeof child === 'string'
      ? [{ at, pattern: child }]
      : patternsOf(child, `${at}/${key}`),
  );
}

/** True when the server's own validation of a user's e-mail takes `email`. */
function serverTakesEmail(email: string): boolean {
  try {
    validateBody(USER_PATCH_SCHEMA, { email });
    return true;
  } catch {
    return false;
  }
}

const ITEM = { productName: 'Widget', quantity: 1, unitPrice: 2.5 };

describe.each(STORE_VARIANTS.slice(0, 1))('the OpenAPI document matches the server ($name)', (variant) => {
  let api: TestApi;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let doc: any;
  let user: { id: string; token: string };
  beforeAll(async () => {
    api = await startTestApi(variant);
    doc = (await send(`${api.url}/openapi.json`)).json();
    user = await api.createUser();
  });
  afterAll(() => api?.close());

  it('patterns are plain ECMA-262: no \\p{...} classes, no lookaround, same meaning with and without the u flag on BMP text', () => {
    const patterns = patternsOf(doc);
    expect(patterns.length).toBeGreaterThan(3);
    for (const { at, pattern } of patterns) {
      expect(pattern, at).not.toMatch(/\\[pP]\{/);
      expect(pattern, at).not.toMatch(/\(\?<?[=!]/);
      const plain = new RegExp(pattern);
      const unicode = new RegExp(pattern, 'u');
      fc.assert(
        fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (text) => {
          // Astral characters are two code units without the u flag: the comparison is of BMP text.
          fc.pre(!/[\uD800-\uDFFF]/.test(text));
          expect(plain.test(text), `${at} on ${JSON.stringify(text)}`).toBe(unicode.test(text));
        }),
        { numRuns: 300 },
      );
    }
  });

  it('every cursor the document allows is one the server takes, 0 included', async () => {
    const cursor = doc.paths['/orders'].get.parameters.find((p: { name: string }) => p.name === 'cursor');
    const pattern = new RegExp(cursor.schema.pattern);
    expect(pattern.test('0')).toBe(true);
    const zero = await send(`${api.url}/orders?cursor=0`, { token: user.token });
    expect(zero.status).toBe(200);
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(pattern), async (value) => {
        const res = await send(`${api.url}/orders?cursor=${encodeURIComponent(value)}`, {
          token: user.token,
        });
        expect(res.status, value).toBe(200);
      }),
      { numRuns: 25 },
    );
    // And what the server issues has the documented form.
    for (let i = 0; i < 3; i++)
      await sendJson(`${api.url}/orders`, 'POST', { items: [ITEM] }, { token: user.token });
    const page = (await send(`${api.url}/orders?limit=1`, { token: user.token })).json();
    expect(page.nextCursor).toMatch(pattern);
    expect((await send(`${api.url}/orders?cursor=abc`, { token: user.token })).status).toBe(400);
    // Past the 32-bit item position too: a cursor the document allows is never a 500.
    const order = (await send(`${api.url}/orders?limit=1`, { token: user.token })).json().items[0];
    const items = await send(`${api.url}/orders/${order.id}/items?cursor=${'9'.repeat(18)}`, {
      token: user.token,
    });
    expect(items.status).toBe(200);
    expect(items.json().items).toEqual([]);
  });

  it("the document's e-mail rule is the server's: same answer on generated and RFC 5322-only addresses", () => {
    const email = doc.components.schemas.UserCreate.properties.email;
    expect(email.pattern).toBeDefined();
    expect(doc.components.schemas.User.properties.email.pattern).toBe(email.pattern);
    const pattern = new RegExp(email.pattern);
    // Valid under RFC 5322 (which `format: email` names) but refused by the server: the pattern must say so.
    for (const address of ['"john doe"@example.com', 'user@[127.0.0.1]', 'a..b@example.com', 'x@localhost'])
      expect(pattern.test(address), address).toBe(serverTakesEmail(address));
    fc.assert(
      fc.property(fc.oneof(fc.emailAddress(), fc.stringMatching(pattern), fc.string()), (address) => {
        fc.pre(address.length <= 254);
        expect(pattern.test(address), address).toBe(serverTakesEmail(address));
      }),
      { numRuns: 500 },
    );
  });

  it('an unknown userId in POST /orders is the 422 the document describes for it', async () => {
    const described = doc.paths['/orders'].post.responses['422'];
    expect(described.description).toMatch(/userId/);
    expect(doc.paths['/orders'].post.responses['404']).toBeUndefined();
    const res = await sendJson(
      `${api.url}/orders`,
      'POST',
      { userId: '00000000-0000-4000-8000-000000000000', items: [ITEM] },
      { token: api.adminToken },
    );
    expect(res.status).toBe(422);
    expect(res.json().errors).toEqual([{ pointer: '/userId', message: 'names no user' }]);
  });

  it('a method a path lacks is 405 with Allow before any token is looked at, on every path', async () => {
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
    const sample = (path: string) =>
      path.replace('{user_id}', user.id).replace('{order_id}', '00000000-0000-4000-8000-000000000000');
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      const documented = Object.keys(item).map((m) => m.toUpperCase());
      for (const method of methods.filter((m) => !documented.includes(m)))
        for (const token of [undefined, 'not-a-token']) {
          const res = await send(`${api.url}${sample(path)}`, { method, ...(token ? { token } : {}) });
          expect(res.status, `${method} ${path} token=${token}`).toBe(405);
          const allow = String(res.headers.allow).split(', ');
          for (const m of documented) expect(allow, `${method} ${path}`).toContain(m);
        }
    }
    // /users/search is not /users/{user_id}: PATCH on it is a method it lacks, not a user to patch.
    expect((await send(`${api.url}/users/search`, { method: 'PATCH' })).status).toBe(405);
  });

  it('an unknown query parameter is 400 naming it, on every operation', async () => {
    const res = await send(`${api.url}/orders?limt=5&status=PENDING`, { token: user.token });
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.detail).toContain('"limt"');
    expect(body.errors).toEqual([{ pointer: '/limt', message: 'is not a known parameter' }]);
    const own = await send(`${api.url}/users/${user.id}?expand=orders`, { token: user.token });
    expect(own.status).toBe(400);
    expect(own.json().errors[0].pointer).toBe('/expand');
    for (const route of ROUTES)
      expect(Object.keys(doc.paths[route.path][route.method].responses)).toContain('400');
  });

  it('/graphql is described, and the description is what the endpoint does', async () => {
    const item = doc.paths['/graphql'];
    expect(item?.post?.requestBody).toBeDefined();
    expect(item.post.responses['200'].content['application/graphql-response+json']).toBeDefined();
    const res = await sendJson(`${api.url}/graphql`, 'POST', { query: '{ __typename }' });
    expect(res.status).toBe(200);
    expect(res.json().data).toEqual({ __typename: 'Query' });
  });
});
