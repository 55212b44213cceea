import { describe, expect, it } from 'vitest';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';
import { isDatabaseUnavailable, toStoreError } from '../../../api/store/unavailable.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    withCode('read ECONNRESET', 'ECONNRESET'),
    new Error('timeout exceeded when trying to connect'),
    new Error('Connection terminated unexpectedly'),
    new Error('Query read timeout'),
    withCode('terminating connection due to administrator command', '57P01'),
    withCode('the database system is starting up', '57P03'),
    withCode('sorry, too many clients already', '53300'),
    withCode('canceling statement due to statement timeout', '57014'),
    withCode('connection failure', '08006'),
  ])('$message is the database being unavailable', (error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
    const translated = toStoreError(error);
    expect(isProxyopsError(translated) && translated.code).toBe('DATABASE_UNAVAILABLE');
    expect((translated as Error).cause).toBe(error);
  });

  it.each([
    withCode('duplicate key value violates unique constraint', '23505'),
    withCode('insert or update violates foreign key constraint', '23503'),
    withCode('syntax error at or near "SELEC"', '42601'),
    'not an error',
  ])('%s passes unchanged', (error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(toStoreError(error)).toBe(error);
  });
});
