import { ProxyopsError } from '../core/errors.js';
import type { ProxySpec } from '../core/spec/proxy-spec.js';
import { parseSpec } from '../core/spec/validate-spec.js';
import { readInputFile } from './logs/read-input-file.js';

/** Reads and validates a spec file; SPEC_UNREADABLE when it cannot be read, SPEC_INVALID when it is wrong. */
export async function readSpecFile(path: string): Promise<ProxySpec> {
  const text = await readInputFile(
    path,
    (reason, cause) => new ProxyopsError('SPEC_UNREADABLE', `cannot read spec ${path}: ${reason}`, { cause }),
  );
  return parseSpec(text.toString('utf8'), path);
}
