import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { isUniqueViolation } from '../store/store.js';
import { assertAdmin, assertSelfOrAdmin, assertVersion, isUuid } from './auth-rules.js';
import type { ResourceContext } from './context.js';
import { keysetAfter, keysetOrder, USERS_KEYSET } from './keyset.js';
import { planPage, toPage, type Page, type PageQuery } from './pagination.js';
import { pageQuerySchema, searchQuerySchema, USER_CREATE_SCHEMA, USER_PATCH_SCHEMA } from './schemas.js';
import { validateBody, validateQuery } from './validate.js';
import { toUserView, type UserRow, type UserView, type Versioned } from './views.js';

/** Fields a client may set on a user. */
export interface UserInput {
  name?: string;
  email?: string;
  role?: 'user' | 'admin';
  address?: string | null;
  phone?: string | null;
  profile?: Record<string, unknown>;
  settings?: Record<string, unknown>;
}

const USER_COLUMNS =
  'id, seq::text AS seq, name, email, role, address, phone, profile, settings, version, created_at, updated_at';

// Client field -> column. Only these names ever reach SQL text.
const WRITABLE: ReadonlyArray<[keyof UserInput, string]> = [
  ['name', 'name'],
  ['email', 'email'],
  ['role', 'role'],
  ['address', 'address'],
  ['phone', 'phone'],
  ['profile', 'profile'],
  ['settings', 'settings'],
];

function normalise(input: UserInput): UserInput {
  const out: UserInput = { ...input };
  if (out.name !== undefined) out.name = out.name.normalize('NFC');
  if (typeof out.address === 'string') out.address = out.address.normalize('NFC');
  return out;
}

function emailTaken(email: string | undefined, cause: unknown): ProxyopsError {
  return new ProxyopsError('EMAIL_TAKEN', `a user with e-mail ${email ?? ''} already exists`, {
    cause,
    details: { errors: [{ pointer: '/email', message: 'is already registered' }] },
  });
}

/** Reads one users row, or null. */
export async function findUserRow(ctx: ResourceContext, userId: string): Promise<UserRow | null> {
  if (!isUuid(userId)) return null;
  const rows = await ctx.store.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [userId]);
  return rows[0] ?? null;
}

/** GET /users: every user, a page at a time (admins only). */
export async function listUsers(
  ctx: ResourceContext,
  query: Record<string, unknown>,
): Promise<Page<UserView>> {
  assertAdmin(ctx.user, 'list all users');
  const window = planPage(
    validateQuery<PageQuery>(pageQuerySchema(ctx.limits.pageSizeMax), query),
    ctx.limits,
  );
  const rows = await ctx.store.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users WHERE ${keysetAfter(USERS_KEYSET, 1)} ${keysetOrder(USERS_KEYSET)} LIMIT $2`,
    [window.after, window.limit + 1],
  );
  return toPage(rows, window, (row) => toUserView(row, ctx.baseUrl));
}

/** GET /users/search?q=: users whose name or e-mail contains `q`, case-insensitively (admins only). */
export async function searchUsers(
  ctx: ResourceContext,
  query: Record<string, unknown>,
): Promise<Page<UserView>> {
  assertAdmin(ctx.user, 'search users');
  const input = validateQuery<PageQuery & { q: string }>(searchQuerySchema(ctx.limits.pageSizeMax), query);
  const window = planPage(input, ctx.limits);
  // strpos, not LIKE: the search text is matched literally, with no wildcard to escape.
  const rows = await ctx.store.query<UserRow>(
    `SELECT ${USER_COLUMNS} FROM users
     WHERE ${keysetAfter(USERS_KEYSET, 1)}
       AND (strpos(lower(name), lower($3)) > 0 OR strpos(lower(email), lower($3)) > 0)
     ${keysetOrder(USERS_KEYSET)} LIMIT $2`,
    [window.after, window.limit + 1, input.q.normalize('NFC')],
  );
  return toPage(rows, window, (row) => toUserView(row, ctx.baseUrl));
}

/** GET /users/{user_id}: the caller themself, or anyone for an admin. */
export async function getUser(ctx: ResourceContext, userId: string): Promise<Versioned<UserView>> {
  assertSelfOrAdmin(ctx.user, userId, 'this user');
  const row = await findUserRow(ctx, userId);
  if (!row) throw new ProxyopsError('NOT_FOUND', `no user ${userId}`);
  return { data: toUserView(row, ctx.baseUrl), version: row.version };
}

/** POST /users: registers a user (admins only); the e-mail is unique, case-insensitively. */
export async function createUser(ctx: ResourceContext, body: unknown): Promise<Versioned<UserView>> {
  assertAdmin(ctx.user, 'register users');
  const input = normalise(validateBody<UserInput>(USER_CREATE_SCHEMA, body));
  try {
    const rows = await ctx.store.query<UserRow>(
      `INSERT INTO users (name, email, role, address, phone, profile, settings)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${USER_COLUMNS}`,
      [
        input.name,
        input.email,
        input.role ?? 'user',
        input.address ?? null,
        input.phone ?? null,
        JSON.stringify(input.profile ?? {}),
        JSON.stringify(input.settings ?? {}),
      ],
    );
    const row = rows[0] as UserRow;
    return { data: toUserView(row, ctx.baseUrl), version: row.version };
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken(input.email, error);
    throw error;
  }
}

/**
 * PATCH /users/{user_id}: changes the given fields (null clears address or phone). Only an admin may
 * change a role. `expectedVersions` comes from If-Match; a stale one is PRECONDITION_FAILED (409).
 */
export async function updateUser(
  ctx: ResourceContext,
  userId: string,
  body: unknown,
  expectedVersions?: readonly number[],
): Promise<Versioned<UserView>> {
  assertSelfOrAdmin(ctx.user, userId, 'this user');
  const input = normalise(validateBody<UserInput>(USER_PATCH_SCHEMA, body));
  if (input.role !== undefined) assertAdmin(ctx.user, 'change a role');
  const sets: string[] = [];
  const params: unknown[] = [userId];
  for (const [field, column] of WRITABLE) {
    const value = input[field];
    if (value === undefined) continue;
    params.push(typeof value === 'object' && value !== null ? JSON.stringify(value) : value);
    sets.push(`${column} = $${params.length}`);
  }
  try {
    return await ctx.store.transaction(async (tx) => {
      if (!isUuid(userId)) throw new ProxyopsError('NOT_FOUND', `no user ${userId}`);
      const current = await tx.query<{ version: number }>(
        'SELECT version FROM users WHERE id = $1 FOR UPDATE',
        [userId],
      );
      if (!current[0]) throw new ProxyopsError('NOT_FOUND', `no user ${userId}`);
      assertVersion(expectedVersions, current[0].version, 'the user');
      const rows = await tx.query<UserRow>(
        `UPDATE users SET ${sets.join(', ')}, version = version + 1, updated_at = now()
         WHERE id = $1 RETURNING ${USER_COLUMNS}`,
        params,
      );
      const row = rows[0] as UserRow;
      return { data: toUserView(row, ctx.baseUrl), version: row.version };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken(input.email, error);
    throw error;
  }
}
