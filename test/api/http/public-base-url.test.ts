import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveApiConfig } from '../../../api/defaults.js';
import { send, sendJson } from '../support/http-client.js';
import { startTestApi, STORE_VARIANTS, type TestApi } from '../support/harness.js';

const SPOOFED = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' };

describe.each(STORE_VARIANTS)('absolute links from the public base URL ($name)', (variant) => {
  let api: TestApi;
  let user: { id: string; token: string };
  beforeAll(async () => {
    api = await startTestApi(variant, { config: { publicBaseUrl: 'https://api.example.com' } });
    user = await api.createUser();
  });
  afterAll(() => api?.close());

  it('Location, Link and _links name the configured URL whatever Host the request carries', async () => {
    const created = await sendJson(
      `${api.url}/orders`,
      'POST',
      { userId: user.id, items: [{ productName: 'Lamp', quantity: 1, unitPrice: 2 }] },
      { token: user.token, headers: SPOOFED },
    );
    expect(created.status).toBe(201);
    expect(created.headers.location).toMatch(/^https:\/\/api\.example\.com\/orders\//);
    expect(created.text).not.toContain('evil.example');
    expect(created.text).toContain('https://api.example.com/');

    const list = await send(`${api.url}/orders?limit=1`, { token: user.token, headers: SPOOFED });
    expect(list.status).toBe(200);
    expect(String(list.headers.link ?? '')).not.toContain('evil.example');
    expect(list.text).not.toContain('evil.example');

    const redirect = await send(`${api.url}/orders/`, { token: user.token, headers: SPOOFED });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.location).toBe('https://api.example.com/orders');
  });
});

describe('--public-base-url', () => {
  it('takes an http(s) URL without its trailing slash and refuses anything else with the option named', () => {
    expect(
      resolveApiConfig({}, { PROXYOPS_PUBLIC_BASE_URL: 'https://api.example.com/v1/' }).publicBaseUrl,
    ).toBe('https://api.example.com/v1');
    for (const bad of ['api.example.com', 'ftp://x', 'https://x/?a=1', 'https://u:p@x'])
      expect(() => resolveApiConfig({ publicBaseUrl: bad }, {})).toThrow(/--public-base-url/);
  });
});
