import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Store } from './store.js';

/** The migrations folder, found both from the sources (api/store) and from the build (dist/api/store). */
export function migrationsDir(): string {
  const candidates = ['../migrations/', '../../../api/migrations/'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  const found = candidates.find((dir) => existsSync(dir));
  if (!found) throw new Error(`no migrations folder at ${candidates.join(' or ')}`);
  return found;
}

/**
 * Applies every `*.sql` file of the migrations folder not yet recorded, in name order, each in its
 * own transaction; an advisory lock keeps two instances starting at once from racing.
 */
export async function applyMigrations(store: Store, dir = migrationsDir()): Promise<string[]> {
  await store.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const files = (await readdir(dir)).filter((name) => name.endsWith('.sql')).sort();
  const applied: string[] = [];
  for (const name of files) {
    const sql = await readFile(`${dir}${name}`, 'utf8');
    const ran = await store.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('proxyops-migrations'))");
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE name = $1', [name]);
      if (done.length > 0) return false;
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      return true;
    });
    if (ran) applied.push(name);
  }
  return applied;
}

/** Splits a migration file on semicolons at line ends (migrations hold no procedural bodies). */
function splitStatements(sql: string): string[] {
  return sql
    .replace(/^\s*--.*$/gm, '')
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0);
}
