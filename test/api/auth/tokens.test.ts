import { describe, expect, it } from 'vitest';
import { createTokenCommand } from '../../../api/auth/token-command.js';
import {
  createToken,
  DEVELOPMENT_JWT_SECRET,
  resolveJwtSecret,
  verifyTokenClaims,
} from '../../../api/auth/tokens.js';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';

const ADA = '00000000-0000-4000-8000-0000000000a1';

const codeOf = async (run: () => unknown) => {
  try {
    await run();
    return 'ok';
  } catch (error) {
    return isProxyopsError(error) ? error.code : 'unexpected';
  }
};

describe('bearer tokens', () => {
  it('a token verifies to the caller it was made for', async () => {
    const secret = resolveJwtSecret({});
    const token = await createToken({ id: ADA, role: 'admin' }, secret);
    expect((await verifyTokenClaims(token, secret)).caller).toEqual({ id: ADA, role: 'admin' });
  });

  it('the development secret is used outside production and refused in it', async () => {
    expect(new TextDecoder().decode(resolveJwtSecret({}))).toBe(DEVELOPMENT_JWT_SECRET);
    expect(await codeOf(() => resolveJwtSecret({ NODE_ENV: 'production' }))).toBe('CONFIG_INVALID');
    expect(
      await codeOf(() =>
        resolveJwtSecret({ NODE_ENV: 'production', PROXYOPS_JWT_SECRET: DEVELOPMENT_JWT_SECRET }),
      ),
    ).toBe('CONFIG_INVALID');
    expect(
      await codeOf(() => resolveJwtSecret({ NODE_ENV: 'production', PROXYOPS_JWT_SECRET: 'short' })),
    ).toBe('CONFIG_INVALID');
    expect(
      await codeOf(() => resolveJwtSecret({ NODE_ENV: 'production', PROXYOPS_JWT_SECRET: 'k'.repeat(32) })),
    ).toBe('ok');
  });

  it('tampered, expired, foreign-secret and role-less tokens are UNAUTHENTICATED', async () => {
    const secret = resolveJwtSecret({});
    const good = await createToken({ id: ADA, role: 'user' }, secret);
    const [header, , signature] = good.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ sub: ADA, role: 'admin' })).toString('base64url');
    for (const token of [
      `${header}.${forgedPayload}.${signature}`,
      await createToken({ id: ADA, role: 'user' }, secret, -10),
      await createToken(
        { id: ADA, role: 'user' },
        new TextEncoder().encode('another-secret-of-32-bytes-or-more!'),
      ),
      await createToken({ id: ADA, role: 'root' as 'user' }, secret),
      // A user token's subject must be a user id; it would reach the store as a bad uuid.
      await createToken({ id: 'ops', role: 'user' }, secret),
    ])
      expect(await codeOf(() => verifyTokenClaims(token, secret))).toBe('UNAUTHENTICATED');
  });

  it('`proxyops api token` checks its flags before signing', async () => {
    expect(await codeOf(() => createTokenCommand({ user: 'u', role: 'root', ttl: '60' }, {}))).toBe(
      'BAD_OPTION',
    );
    expect(await codeOf(() => createTokenCommand({ user: 'u', role: 'user', ttl: 'soon' }, {}))).toBe(
      'BAD_OPTION',
    );
    for (const ttl of ['0', '99999999999999999', '1e3'])
      expect(await codeOf(() => createTokenCommand({ user: ADA, role: 'user', ttl }, {}))).toBe('BAD_OPTION');
    for (const user of [' ', 'ops', `{${ADA}}`])
      expect(await codeOf(() => createTokenCommand({ user, role: 'user', ttl: '60' }, {}))).toBe(
        'BAD_OPTION',
      );
    const token = await createTokenCommand({ user: ADA, role: 'admin', ttl: '60' }, {});
    expect((await verifyTokenClaims(token, resolveJwtSecret({}))).caller).toEqual({ id: ADA, role: 'admin' });
  });
});
