import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSpecFile } from '../../proxy-config/shell/read-spec-file.js';
import { renderSpec } from '../../proxy-config/config/render-config.js';

const EXAMPLES = join(import.meta.dirname, '../../proxy-config/examples');
const GOLDEN = join(import.meta.dirname, 'golden');
const names = (await readdir(EXAMPLES)).filter((n) => n.endsWith('.yaml')).sort();

/**
 * The rendered examples are pinned: a template or default change shows up as a diff to review.
 * After an intended change: UPDATE_GOLDEN=1 npx vitest run test/proxy-config/golden.test.ts
 */
describe('rendered examples match their golden files', () => {
  it.each(names)('%s', async (name) => {
    const rendered = (await renderSpec(await readSpecFile(join(EXAMPLES, name))))['nginx.conf']!;
    const golden = join(GOLDEN, name.replace(/\.yaml$/, '.nginx.conf'));
    if (process.env.UPDATE_GOLDEN === '1') await writeFile(golden, rendered);
    expect(rendered).toBe(await readFile(golden, 'utf8'));
  });
});
