import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { isUuid } from '../resources/auth-rules.js';
import { createToken, resolveJwtSecret } from './tokens.js';

/** A development token outliving a year is a forgotten credential, not a convenience. */
const MAX_TTL_SECONDS = 366 * 24 * 3600;

/** Checks the `proxyops api token` flags and signs the token (an admin token needs no stored user). */
export async function createTokenCommand(
  flags: { user: string; role: string; ttl: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  if (flags.role !== 'user' && flags.role !== 'admin')
    throw new ProxyopsError('BAD_OPTION', `--role ${JSON.stringify(flags.role)} must be user or admin`);
  if (!/^\d+$/.test(flags.ttl) || Number(flags.ttl) < 1 || Number(flags.ttl) > MAX_TTL_SECONDS)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--ttl ${JSON.stringify(flags.ttl)} must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS} (a year)`,
    );
  if (flags.user.trim() === '') throw new ProxyopsError('BAD_OPTION', '--user must not be empty');
  if (flags.role === 'user' && !isUuid(flags.user))
    throw new ProxyopsError(
      'BAD_OPTION',
      `--user ${JSON.stringify(flags.user)} must be a user id (a UUID) for a user token; an admin token may name any operator`,
    );
  return createToken({ id: flags.user, role: flags.role }, resolveJwtSecret(env), Number(flags.ttl));
}
