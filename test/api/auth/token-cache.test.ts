import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTokenVerifier, tokenVerifierFor } from '../../../api/auth/token-cache.js';
import { createToken, resolveJwtSecret } from '../../../api/auth/tokens.js';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';

const codeOf = async (run: () => unknown) => {
  try {
    await run();
    return 'ok';
  } catch (error) {
    return isProxyopsError(error) ? error.code : 'unexpected';
  }
};

afterEach(() => {
  vi.useRealTimers();
});

describe('token verifier cache', () => {
  it('remembers a verified token and answers it synchronously', async () => {
    const secret = resolveJwtSecret({});
    const verifier = createTokenVerifier(secret);
    const token = await createToken({ id: '00000000-0000-4000-8000-0000000000a1', role: 'user' }, secret);
    expect(verifier.cached(token)).toBeUndefined();
    expect(await verifier.verify(token)).toEqual({
      id: '00000000-0000-4000-8000-0000000000a1',
      role: 'user',
    });
    expect(verifier.cached(token)).toEqual({ id: '00000000-0000-4000-8000-0000000000a1', role: 'user' });
  });

  it('REST and GraphQL share one verifier per secret: a token verified by one is known to the other', async () => {
    const secret = resolveJwtSecret({});
    const other = new TextEncoder().encode('y'.repeat(40));
    const token = await createToken({ id: '00000000-0000-4000-8000-0000000000a2', role: 'admin' }, secret);
    await tokenVerifierFor(secret).verify(token);
    expect(tokenVerifierFor(secret).cached(token)).toEqual({
      id: '00000000-0000-4000-8000-0000000000a2',
      role: 'admin',
    });
    expect(tokenVerifierFor(other)).not.toBe(tokenVerifierFor(secret));
    expect(await codeOf(() => tokenVerifierFor(other).verify(token))).toBe('UNAUTHENTICATED');
  });

  it('a remembered token still expires at its exp', async () => {
    const secret = resolveJwtSecret({});
    const verifier = createTokenVerifier(secret);
    const token = await createToken({ id: '00000000-0000-4000-8000-0000000000a1', role: 'user' }, secret, 60);
    await verifier.verify(token);
    vi.useFakeTimers({ now: Date.now() + 61_000, toFake: ['Date'] });
    expect(verifier.cached(token)).toBeUndefined();
    expect(await codeOf(() => verifier.verify(token))).toBe('UNAUTHENTICATED');
  });

  it('a tampered copy of a remembered token is verified afresh and refused', async () => {
    const secret = resolveJwtSecret({});
    const verifier = createTokenVerifier(secret);
    const token = await createToken({ id: '00000000-0000-4000-8000-0000000000a1', role: 'user' }, secret);
    await verifier.verify(token);
    const [header, , signature] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({
        sub: '00000000-0000-4000-8000-0000000000a1',
        role: 'admin',
        iss: 'proxyops',
        aud: 'proxyops-api',
        exp: 4e9,
      }),
    ).toString('base64url');
    const tampered = `${header}.${forged}.${signature}`;
    expect(verifier.cached(tampered)).toBeUndefined();
    expect(await codeOf(() => verifier.verify(tampered))).toBe('UNAUTHENTICATED');
    expect(verifier.cached(tampered)).toBeUndefined();
  });

  it('forgets the oldest token past its size cap', async () => {
    const secret = resolveJwtSecret({});
    const verifier = createTokenVerifier(secret, 2);
    const ids = ['a', 'b', 'c'].map((c) => `00000000-0000-4000-8000-00000000000${c}`);
    const tokens = await Promise.all(ids.map((id) => createToken({ id, role: 'user' }, secret)));
    for (const token of tokens) await verifier.verify(token);
    expect(tokens.map((token) => verifier.cached(token)?.id)).toEqual([undefined, ids[1], ids[2]]);
  });
});
