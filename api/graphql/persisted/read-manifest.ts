import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ProxyopsError } from '../../../proxy-config/core/errors.js';
import { toAllowList, type SourceFile } from './manifest.js';

/** Reads the allow-list manifest at start-up; a missing or malformed file stops the start. */
export function readAllowList(path: string): Map<string, string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new ProxyopsError(
      'BAD_OPTION',
      `cannot read the GraphQL allow-list ${path}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return toAllowList(parsed, path);
}

/** Every `*.graphql` / `*.gql` file under `dir`, in path order. */
export async function readGraphqlFiles(dir: string): Promise<SourceFile[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const paths = entries
    .filter((entry) => entry.isFile() && /\.(graphql|gql)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  return Promise.all(
    paths.map(async (path) => ({ path: relative(dir, path), text: await readFile(path, 'utf8') })),
  );
}
