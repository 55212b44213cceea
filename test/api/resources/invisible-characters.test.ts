import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../../api/store/store.js';
import { gql, startGraphqlApi, type GraphqlTestApi } from '../graphql/support/graphql-api.js';
import { send, sendJson, type TestResponse } from '../support/http-client.js';
import { snapshotData, STORE_VARIANTS } from '../support/harness.js';

/** Each kind of invisible code point, as a client might paste it into a name. */
const INVISIBLE: ReadonlyArray<[string, string]> = [
  ['U+200B', '\u200B'], // zero-width space
  ['U+FEFF', '\uFEFF'], // byte order mark
  ['U+2028', '\u2028'], // line separator
  ['U+2029', '\u2029'], // paragraph separator
  ['U+2060', '\u2060'], // word joiner
  ['U+00AD', '\u00AD'], // soft hyphen
  ['U+200E', '\u200E'], // left-to-right mark
  ['U+200D', '\u200D'], // zero-width joiner between Latin letters, where it joins nothing
  ['U+034F', '\u034F'], // combining grapheme joiner
  ['U+3164', '\u3164'], // Hangul filler
  ['U+E0001', '\u{E0001}'], // language tag, beyond the BMP: no portable pattern names it
];

/** Names that must keep working: other scripts, combining marks, joiners and selectors where they show. */
const NAMES = [
  'Zürich',
  '東京',
  'Zu\u0308rich', // decomposed: stored as "Zürich"
  'می\u200Cخواهم', // Persian with ZWNJ
  'क्\u200Dष', // Devanagari half form
  '👩🏽\u200D💻 ❤\uFE0F', // emoji ZWJ sequence and emoji presentation
];

const CREATE_ORDER =
  'mutation($input: CreateOrderInput!) { createOrder(input: $input) { id items { productName } } }';
const SEARCH = 'query($q: String) { users(search: $q) { id name } }';
const item = (productName: string) => ({ productName, quantity: 1, unitPrice: 1 });

describe.each(STORE_VARIANTS)(
  'invisible characters in names are refused, REST and GraphQL alike ($name)',
  (variant) => {
    let api: GraphqlTestApi;
    let store: Store;
    let drop: () => Promise<void>;
    let user: { id: string; token: string };
    beforeAll(async () => {
      ({ store, drop } = await variant.open());
      api = await startGraphqlApi(store);
      user = await api.createUser('Original Name');
    });
    afterAll(async () => {
      await api?.close();
      await store?.close();
      await drop?.();
    });

    /** Checks a REST refusal: status, problem+json, the field and the code point named, nothing stored. */
    async function expectRefused(
      status: number,
      pointer: string,
      codePoint: string,
      attempt: () => Promise<TestResponse>,
    ) {
      const before = await snapshotData(store);
      const res = await attempt();
      expect(res.status, res.text).toBe(status);
      expect(res.headers['content-type']).toContain('application/problem+json');
      const body = res.json();
      expect(body.code).toBe(status === 400 ? 'BAD_PARAMETER' : 'VALIDATION_FAILED');
      expect(body.errors).toEqual([{ pointer, message: expect.stringContaining(`contains ${codePoint}, `) }]);
      expect(body.detail).toContain(`${pointer} contains ${codePoint}`);
      expect(await snapshotData(store)).toBe(before);
    }

    /** Checks a GraphQL refusal: BAD_USER_INPUT naming the field and the code point, nothing stored. */
    async function expectGraphqlRefused(
      pointer: string,
      codePoint: string,
      attempt: () => Promise<TestResponse>,
    ) {
      const before = await snapshotData(store);
      const res = await attempt();
      expect(res.status, res.text).toBe(200);
      const body = res.json();
      expect(body.data).toBeNull();
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].message).toContain(`${pointer} contains ${codePoint}`);
      expect(body.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        fieldErrors: [{ pointer, message: expect.stringContaining(`contains ${codePoint}, `) }],
      });
      expect(await snapshotData(store)).toBe(before);
    }

    it.each(INVISIBLE)(
      '%s is refused in every name field, over REST and GraphQL',
      async (codePoint, char) => {
        const name = `Ada${char}Lovelace`;
        await expectRefused(422, '/name', codePoint, () =>
          sendJson(
            `${api.url}/users`,
            'POST',
            { name, email: `${randomUUID()}@example.com` },
            { token: api.adminToken },
          ),
        );
        await expectRefused(422, '/name', codePoint, () =>
          sendJson(`${api.url}/users/${user.id}`, 'PATCH', { name }, { token: user.token }),
        );
        await expectRefused(422, '/address', codePoint, () =>
          sendJson(`${api.url}/users/${user.id}`, 'PATCH', { address: name }, { token: user.token }),
        );
        await expectRefused(422, '/items/1/productName', codePoint, () =>
          sendJson(`${api.url}/orders`, 'POST', { items: [item('Pen'), item(name)] }, { token: user.token }),
        );
        await expectRefused(400, '/q', codePoint, () =>
          send(`${api.url}/users/search?q=${encodeURIComponent(name)}`, { token: api.adminToken }),
        );
        await expectGraphqlRefused('/items/0/productName', codePoint, () =>
          gql(api, CREATE_ORDER, { variables: { input: { items: [item(name)] } }, token: user.token }),
        );
        await expectGraphqlRefused('/q', codePoint, () =>
          gql(api, SEARCH, { variables: { q: name }, token: api.adminToken }),
        );
      },
    );

    it('a control character is named too, and with the field it is the only error', async () => {
      const res = await sendJson(
        `${api.url}/users/${user.id}`,
        'PATCH',
        { name: 'line\nbreak', address: 'x\ty' },
        { token: user.token },
      );
      expect(res.status).toBe(422);
      expect(res.json().errors).toEqual([
        { pointer: '/name', message: 'contains U+000A, a control character, at character 5' },
        { pointer: '/address', message: 'contains U+0009, a control character, at character 2' },
      ]);
    });

    it.each(NAMES)(
      '%j is taken, stored NFC, and found by its NFC spelling, over REST and GraphQL',
      async (name) => {
        const stored = name.normalize('NFC');
        const created = await sendJson(
          `${api.url}/users`,
          'POST',
          { name, email: `${randomUUID()}@example.com` },
          { token: api.adminToken },
        );
        expect(created.status, created.text).toBe(201);
        expect(created.json().name).toBe(stored);
        const search = await send(`${api.url}/users/search?q=${encodeURIComponent(stored)}`, {
          token: api.adminToken,
        });
        expect(search.status).toBe(200);
        expect(search.json().items.map((u: { id: string }) => u.id)).toContain(created.json().id);
        const viaGraphql = await gql(api, SEARCH, { variables: { q: name }, token: api.adminToken });
        expect(viaGraphql.json().data.users.map((u: { id: string }) => u.id)).toContain(created.json().id);
        const order = await gql(api, CREATE_ORDER, {
          variables: { input: { items: [item(name)] } },
          token: user.token,
        });
        expect(order.json().errors).toBeUndefined();
        expect(order.json().data.createOrder.items).toEqual([{ productName: stored }]);
      },
    );
  },
);
