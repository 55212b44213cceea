import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, sendJson } from '../support/http-client.js';
import { snapshotData, startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

describe.each(STORE_VARIANTS)('users endpoints ($name)', (variant) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(variant, { config: { pageSizeDefault: 2, pageSizeMax: 5 } });
  });
  afterAll(() => api?.close());

  it('POST /users registers a user: 201, Location of the new resource, ETag, the stored fields', async () => {
    const email = `new-${randomUUID()}@example.com`;
    const res = await sendJson(
      `${api.url}/users`,
      'POST',
      {
        name: 'Neue Nutzerin',
        email,
        address: 'Hauptstraße 1',
        phone: '+49 30 1234567',
        profile: { bio: 'hi' },
      },
      { token: api.adminToken },
    );
    expect(res.status).toBe(201);
    const body = res.json();
    expect(res.headers.location).toBe(`${api.url}/users/${body.id}`);
    expect(res.headers.etag).toMatch(/^"v\d+"$/);
    expect(body).toMatchObject({ name: 'Neue Nutzerin', email, role: 'user', address: 'Hauptstraße 1' });
    expect(Date.parse(body.createdAt)).not.toBeNaN();
    const read = await send(res.headers.location as string, { token: api.adminToken });
    expect(read.status).toBe(200);
    expect(read.json()).toEqual(body);
  });

  it('POST /users with an e-mail already registered (any case) is 409 and stores nothing', async () => {
    const existing = await api.createUser();
    const before = await snapshotData(api.store);
    const res = await sendJson(
      `${api.url}/users`,
      'POST',
      { name: 'Twin', email: existing.email.toUpperCase() },
      { token: api.adminToken },
    );
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 409, code: 'EMAIL_TAKEN' });
    expect(await snapshotData(api.store)).toBe(before);
  });

  it('POST /users is for admins: a user token is 403', async () => {
    const user = await api.createUser();
    const res = await sendJson(
      `${api.url}/users`,
      'POST',
      { name: 'X', email: 'x@example.com' },
      { token: user.token },
    );
    expect(res.status).toBe(403);
  });

  it('GET /users pages with a cursor and Link rel="next" until every user was seen once', async () => {
    for (let i = 0; i < 3; i++) await api.createUser();
    const total = Number((await api.store.query<{ n: string }>('SELECT count(*) AS n FROM users'))[0]?.n);
    const seen: string[] = [];
    let next: string | undefined = `${api.url}/users`;
    let pages = 0;
    while (next) {
      const res = await send(next, { token: api.adminToken });
      expect(res.status).toBe(200);
      const body = res.json();
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items.map((u: { id: string }) => u.id));
      const link = res.headers.link as string | undefined;
      next = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
      expect(body._links.next?.href).toBe(next);
      pages++;
    }
    expect(pages).toBe(Math.ceil(total / 2));
    expect(new Set(seen).size).toBe(total);
  });

  it('GET /users bounds limit: above the maximum, zero or not a number is 400', async () => {
    const ok = await send(`${api.url}/users?limit=5`, { token: api.adminToken });
    expect(ok.status).toBe(200);
    for (const limit of ['6', '0', 'abc', '-1']) {
      const res = await send(`${api.url}/users?limit=${limit}`, { token: api.adminToken });
      expect(res.status).toBe(400);
      expect(res.json().errors[0].pointer).toBe('/limit');
    }
    const badCursor = await send(`${api.url}/users?cursor=bm90LW91cnM`, { token: api.adminToken });
    expect(badCursor.status).toBe(400);
  });

  it('GET /users is for admins only', async () => {
    const user = await api.createUser();
    expect((await send(`${api.url}/users`, { token: user.token })).status).toBe(403);
  });

  it('GET /users/{user_id}: the user themself 200 with ETag; another user 403; missing 404', async () => {
    const a = await api.createUser({ name: 'Alice' });
    const b = await api.createUser({ name: 'Bob' });
    const own = await send(`${api.url}/users/${a.id}`, { token: a.token });
    expect(own.status).toBe(200);
    expect(own.json()).toMatchObject({ id: a.id, name: 'Alice', email: a.email });
    expect(own.headers.etag).toMatch(/^"v\d+"$/);
    expect(own.headers['cache-control']).toBe('private, no-cache');
    expect((await send(`${api.url}/users/${b.id}`, { token: a.token })).status).toBe(403);
    expect((await send(`${api.url}/users/${randomUUID()}`, { token: api.adminToken })).status).toBe(404);
    expect((await send(`${api.url}/users/not-a-uuid`, { token: api.adminToken })).status).toBe(404);
  });

  it('GET with If-None-Match of the current ETag is 304 without a body; after a change it is 200', async () => {
    const a = await api.createUser();
    const first = await send(`${api.url}/users/${a.id}`, { token: a.token });
    const etag = first.headers.etag as string;
    const again = await send(`${api.url}/users/${a.id}`, {
      token: a.token,
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    await sendJson(`${api.url}/users/${a.id}`, 'PATCH', { name: 'Changed' }, { token: a.token });
    const changed = await send(`${api.url}/users/${a.id}`, {
      token: a.token,
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
  });

  it('PATCH /users/{user_id} changes fields, clears with null and moves the ETag', async () => {
    const a = await api.createUser();
    const first = await send(`${api.url}/users/${a.id}`, { token: a.token });
    const res = await sendJson(
      `${api.url}/users/${a.id}`,
      'PATCH',
      { name: 'Renamed', address: null, settings: { theme: 'dark' } },
      { token: a.token, headers: { 'if-match': first.headers.etag as string } },
    );
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Renamed', address: null, settings: { theme: 'dark' } });
    expect(res.headers.etag).not.toBe(first.headers.etag);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('PATCH with a stale If-Match is 409 and changes nothing (optimistic lock)', async () => {
    const a = await api.createUser({ name: 'Original' });
    const read = await send(`${api.url}/users/${a.id}`, { token: a.token });
    const stale = read.headers.etag as string;
    expect(
      (await sendJson(`${api.url}/users/${a.id}`, 'PATCH', { name: 'First' }, { token: a.token })).status,
    ).toBe(200);
    const before = await snapshotData(api.store);
    const res = await sendJson(
      `${api.url}/users/${a.id}`,
      'PATCH',
      { name: 'Second' },
      { token: a.token, headers: { 'if-match': stale } },
    );
    expect(res.status).toBe(409);
    expect(res.json().code).toBe('PRECONDITION_FAILED');
    expect(await snapshotData(api.store)).toBe(before);
  });

  it('PATCH to an e-mail another user has is 409; a role change by a user is 403', async () => {
    const a = await api.createUser();
    const b = await api.createUser();
    const taken = await sendJson(`${api.url}/users/${a.id}`, 'PATCH', { email: b.email }, { token: a.token });
    expect(taken.status).toBe(409);
    const role = await sendJson(`${api.url}/users/${a.id}`, 'PATCH', { role: 'admin' }, { token: a.token });
    expect(role.status).toBe(403);
    const byAdmin = await sendJson(
      `${api.url}/users/${a.id}`,
      'PATCH',
      { role: 'admin' },
      { token: api.adminToken },
    );
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.json().role).toBe('admin');
    const other = await sendJson(`${api.url}/users/${b.id}`, 'PATCH', { name: 'Hijack' }, { token: a.token });
    expect(other.status).toBe(403);
  });

  it('GET /users/search?q= matches name or e-mail, case-insensitively and literally', async () => {
    const tag = randomUUID().slice(0, 8);
    const hit = await api.createUser({ name: `Zed ${tag} Person` });
    await api.createUser({ name: 'Somebody Else' });
    const res = await send(`${api.url}/users/search?q=${tag.toUpperCase()}`, { token: api.adminToken });
    expect(res.status).toBe(200);
    expect(res.json().items.map((u: { id: string }) => u.id)).toEqual([hit.id]);
    const wildcard = await send(`${api.url}/users/search?q=%25`, { token: api.adminToken });
    expect(wildcard.json().items).toEqual([]);
    expect((await send(`${api.url}/users/search`, { token: api.adminToken })).status).toBe(400);
    expect((await send(`${api.url}/users/search?q=${tag}`, { token: hit.token })).status).toBe(403);
  });
});
