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
