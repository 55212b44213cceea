import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProxyopsError } from '../../core/errors.js';

const SUFFIX = '.tmpl';

/** The shipped `templates/` folder, found upwards from this module (works from sources and from dist/). */
export function findTemplatesDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'templates');
    if (existsSync(join(candidate, `nginx.conf${SUFFIX}`))) return candidate;
    const parent = dirname(dir);
    if (parent === dir)
      throw new ProxyopsError('TEMPLATES_MISSING', 'cannot find the proxyops templates/ folder');
    dir = parent;
  }
}

/** Reads every `*.tmpl` of a folder into name → text (the name drops `.tmpl`). */
export async function readTemplates(dir = findTemplatesDir()): Promise<Record<string, string>> {
  const names = (await readdir(dir)).filter((n) => n.endsWith(SUFFIX)).sort();
  const entries = await Promise.all(
    names.map(async (n) => [n.slice(0, -SUFFIX.length), await readFile(join(dir, n), 'utf8')] as const),
  );
  return Object.fromEntries(entries);
}
