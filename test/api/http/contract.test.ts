import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { WrappedRE2 } from 're2-wasm/build/wasm/re2.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
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

/** Strings every pattern is tried on: each control, both halves of a pair alone, astral characters, edges. */
const PATTERN_CORPUS = [
  ...Array.from({ length: 0x20 }, (_, c) => `a${String.fromCharCode(c)}b`),
  ...Array.from({ length: 0x21 }, (_, c) => `a${String.fromCharCode(0x7f + c)}b`),
  'ab\n',
  '\nab',
  '\uD800',
  'a\uDBFFb',
  '\uDC00',
  'x\uDFFF',
  '\uDFFF\uD800',
  '😀',
  'a😀b',
  '\u{10000}',
  '\u{10FFFF}',
  '\u{1F600}\u{E0001}',
  '\uE000',
  '\uF8FF',
  '\uF900',
  '\u202A',
  '\u202E',
  '\u202F',
  '\u2066',
  '\u2069',
  ' ',
  '\u3000',
  '\uFEFF',
  '\uFEFFx',
  'a\u200Bb',
  '\u2028',
  'x\u2029',
  'a\u00ADb',
  'a\u200Db',
  '\u2764\uFE0F',
  '\u3164',
  '\u00A0x',
  '',
  'Ada',
  '0',
  '123456789012345678',
  '1234567890123456789',
  'x@example.org',
  'X.Y@sub.example.org',
  '+44 20 7946 0000',
  'a-b_c',
  'A'.repeat(64),
  '"key"',
  'x,y',
  '"x,y"',
  '"a\\"b"',
  'k'.repeat(255),
  'k'.repeat(256),
  `"${'k'.repeat(255)}"`,
];

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

  it('every pattern compiles in RE2 as written, in ECMAScript without a flag, with u and with v, and in PCRE2, and they agree on a corpus of controls, surrogates and astral characters', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxyops-patterns-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    // Each distinct pattern once (the text pattern stands at a dozen places), named by its first place.
    const patterns = [
      ...new Map(
        patternsOf(doc)
          .reverse()
          .map((p) => [p.pattern, p]),
      ).values(),
    ];
    expect(patterns.length).toBeGreaterThan(5);
    for (const { at, pattern } of patterns) {
      // Nothing only some engines read: \uXXXX and \x{...} escapes, property classes, lookaround.
      expect(pattern, at).not.toMatch(/\\u|\\x\{|\\[pP]\{|\(\?<?[=!]/);
      const re2 = new WrappedRE2(pattern, false, false, false);
      expect(re2.error(), `RE2 refuses ${at}`).toBe('');
      const unicode = new RegExp(pattern, 'u');
      const plain = new RegExp(pattern);
      // The v flag (unicodeSets) refuses a bare ( ) [ ] { } / - | or a doubled punctuator in a class.
      const unicodeSets = new RegExp(pattern, 'v');
      const generated = fc.sample(fc.stringMatching(unicode, { size: 'small' }), { numRuns: 40, seed: 7 });
      const random = fc.sample(fc.string({ unit: 'binary', maxLength: 24 }), { numRuns: 120, seed: 7 });
      const corpus = [...PATTERN_CORPUS, ...generated, ...random];
      // PCRE2 as GNU grep -P runs it (UTF mode): one line per string, so none with a line break.
      const lines = corpus.filter((text) => !/[\n\uD800-\uDFFF]/u.test(text));
      const file = join(dir, 'corpus.txt');
      writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
      const grep = spawnSync('grep', ['-P', '-n', '-a', '--', pattern, file], {
        encoding: 'utf8',
        env: { ...process.env, LC_ALL: 'C.UTF-8' },
      });
      expect(grep.status, `PCRE2 refuses ${at}: ${grep.stderr}`).toBeLessThan(2);
      const pcre2 = new Set(
        grep.stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => Number(l.split(':')[0]) - 1),
      );
      lines.forEach((text, i) =>
        expect(pcre2.has(i), `PCRE2 ${at} on ${JSON.stringify(text)}`).toBe(unicode.test(text)),
      );
      for (const text of corpus) {
        const shown = `${at} on ${JSON.stringify(text)}`;
        expect(plain.test(text), shown).toBe(unicode.test(text));
        expect(unicodeSets.test(text), `v: ${shown}`).toBe(unicode.test(text));
        // UTF-8 engines cannot hold half a surrogate pair; every other string they must judge alike.
        if (!/[\uD800-\uDFFF]/u.test(text))
          expect(re2.match(text, 0, false).index >= 0, `RE2 ${shown}`).toBe(unicode.test(text));
      }
    }
  });

  it('text fields refuse controls, lone surrogates and blank text, and take astral characters, by the document as by the server', async () => {
    const text = doc.components.schemas.UserPatch.properties.name;
    const pattern = new RegExp(text.pattern, 'u');
    for (const name of ['Ada 😀', '\u{10FFFF}x', ' Grace', 'Ünïcødé']) {
      expect(pattern.test(name), name).toBe(true);
      expect(
        (await sendJson(`${api.url}/users/${user.id}`, 'PATCH', { name }, { token: user.token })).status,
      ).toBe(200);
    }
    for (const name of [
      'a\u0000b',
      'tab\tin',
      'c1\u0085',
      '\u202Eevil',
      '\u3000 \u00A0',
      'zero\u200Bwidth',
      'a\u2028b',
    ]) {
      expect(pattern.test(name), JSON.stringify(name)).toBe(false);
      expect(
        (await sendJson(`${api.url}/users/${user.id}`, 'PATCH', { name }, { token: user.token })).status,
      ).toBe(422);
    }
    // Half a pair reaches only a UTF-16 engine; the server refuses it apart from the pattern.
    const lone = await sendJson(
      `${api.url}/users/${user.id}`,
      'PATCH',
      { name: 'a\uD800b' },
      { token: user.token },
    );
    expect(lone.status).toBe(422);
    expect(lone.json().errors).toEqual([{ pointer: '/name', message: expect.stringContaining('surrogate') }]);
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
