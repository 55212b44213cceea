import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { resolveApiConfig } from '../defaults.js';
import { buildOpenApi } from './openapi.js';

/** Writes the OpenAPI document (as the API would serve it with the current settings) to a file or stdout. */
export async function writeOpenApi(out?: string): Promise<void> {
  const text = `${JSON.stringify(buildOpenApi(resolveApiConfig()), null, 2)}\n`;
  if (out === undefined) {
    process.stdout.write(text);
    return;
  }
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, text);
}
