import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Modules whose import means an effect (files, processes, sockets, databases, the framework). */
const EFFECTFUL = [
  /^node:(fs|fs\/promises|child_process|net|http|https|http2|tls|dgram|dns|os|worker_threads|cluster|readline)$/,
  /^(fs|child_process|net|http|https|os)$/,
  /^(execa|pg|ioredis|ws|express|pino|@electric-sql\/pglite)$/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(dir, file));
}

/** Every module a file names in `import … from`, `export … from` or `import(…)`. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const found = text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm);
  return [...found].map((match) => match[1] as string);
}

/** `file: module` for each import of a file under `dir` that `isBad` refuses. */
function violations(dir: string, isBad: (module: string, file: string) => boolean): string[] {
  return sourceFiles(dir).flatMap((file) =>
    importsOf(file)
      .filter((module) => isBad(module, file))
      .map((module) => `${file}: ${module}`),
  );
}

/** The repo-relative path a relative import points at. */
function target(module: string, file: string): string {
  return relative(ROOT, resolve(ROOT, dirname(file), module));
}

describe('import direction', () => {
  it('proxy-config/core imports nothing effectful and no code outside core', () => {
    const bad = violations('proxy-config/core', (module, file) =>
      module.startsWith('.')
        ? !module.endsWith('.json') && !target(module, file).startsWith('proxy-config/core/')
        : EFFECTFUL.some((pattern) => pattern.test(module)),
    );
    expect(bad).toEqual([]);
  });

  it('proxy-config/core reads no environment', () => {
    const bad = sourceFiles('proxy-config/core').filter((file) =>
      /\bprocess\.(env|argv|cwd|exit)\b/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(bad).toEqual([]);
  });

  it('proxy-config imports nothing from cli/ or api/', () => {
    const bad = violations(
      'proxy-config',
      (module, file) => module.startsWith('.') && /^(cli|api)\//.test(target(module, file)),
    );
    expect(bad).toEqual([]);
  });

  it('api resources and store know nothing of Express or the HTTP layer', () => {
    const isBad = (module: string, file: string) =>
      module.startsWith('.') ? target(module, file).startsWith('api/http/') : /^express(\/|$)/.test(module);
    expect([...violations('api/resources', isBad), ...violations('api/store', isBad)]).toEqual([]);
  });

  it('the checks see the imports they guard', () => {
    expect(importsOf('proxy-config/core/spec/parse-spec-text.ts')).toContain('yaml');
    expect(importsOf('api/store/pg-store.ts')).toContain('pg');
  });
});

/**
 * Where a SQL text in `text` sorts by a text value: an `ORDER BY` term that is a `::text` cast, or a
 * bare name that the same file selects as `x::text AS name` (PostgreSQL sorts a bare name by the
 * output column, so the keyset sorts as text while `seq > $1` compares numbers).
 */
function textOrderings(text: string): string[] {
  const textAliases = new Set([...text.matchAll(/::text\s+AS\s+(\w+)/gi)].map((match) => match[1] as string));
  return [...text.matchAll(/ORDER BY\s+([^`;)]+?)(?=\s+LIMIT\b|\s*[`;)]|\s*$)/gis)].flatMap((match) =>
    (match[1] as string)
      .split(',')
      .map((term) => term.trim().replace(/\s+(ASC|DESC)$/i, ''))
      .filter((term) => /::text$/i.test(term) || textAliases.has(term))
      .map((term) => `ORDER BY ${term}`),
  );
}

/** Keyset comparisons on a bare key (`seq > $1`) rather than through api/resources/keyset.ts. */
function bareKeyComparisons(text: string): string[] {
  return [...text.matchAll(/(?<![.\w])seq\s*[<>]=?\s*\$\d/g)].map((match) => match[0]);
}

describe('keyset pagination', () => {
  it('no list query in api/ orders by a text-cast key or compares a bare key', () => {
    const bad = sourceFiles('api').flatMap((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return [...textOrderings(text), ...bareKeyComparisons(text)].map((found) => `${file}: ${found}`);
    });
    expect(bad).toEqual([]);
  });

  it('the checks see the query shape that lost rows', () => {
    const old = `const COLUMNS = 'id, seq::text AS seq, name';
      db.query(\`SELECT \${COLUMNS} FROM users WHERE seq > $1 ORDER BY seq LIMIT $2\`)`;
    expect(textOrderings(old)).toEqual(['ORDER BY seq']);
    expect(bareKeyComparisons(old)).toEqual(['seq > $1']);
    expect(textOrderings('SELECT x FROM t ORDER BY user_id, seq::text DESC')).toEqual(['ORDER BY seq::text']);
    expect(textOrderings('SELECT seq::text AS seq FROM users ORDER BY users.seq ASC LIMIT $2')).toEqual([]);
    expect(textOrderings('SELECT o.* FROM x o ORDER BY o.user_id, o.seq::bigint`')).toEqual([]);
  });
});
