import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ProxyopsError } from '../../../proxy-config/core/errors.js';
import { createGraphqlSchema } from '../schema.js';
import { buildManifest, type Manifest } from './manifest.js';
import { readGraphqlFiles } from './read-manifest.js';

/**
 * `proxyops api graphql-manifest`: reads every `.graphql` file under `from`, checks each operation
 * against the API's schema and writes the allow-list manifest to `out`.
 */
export async function writeManifest(options: { from: string; out: string }): Promise<Manifest> {
  let files;
  try {
    files = await readGraphqlFiles(options.from);
  } catch (error) {
    throw new ProxyopsError('USAGE', `cannot read ${options.from}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (files.length === 0) throw new ProxyopsError('USAGE', `no .graphql files under ${options.from}`);
  const manifest = buildManifest(files, createGraphqlSchema());
  await mkdir(dirname(options.out), { recursive: true });
  await writeFile(options.out, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}
