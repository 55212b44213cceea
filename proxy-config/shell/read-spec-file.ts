import { readFile } from 'node:fs/promises';
import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { parseSpec } from '../core/spec/validate-spec.js';

/** Reads and validates a spec file; SPEC_UNREADABLE when it cannot be read, SPEC_INVALID when it is wrong. */
export async function readSpecFile(path: string): Promise<ProxySpec> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ProxyopsError('SPEC_UNREADABLE', `cannot read spec ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return parseSpec(text, path);
}
