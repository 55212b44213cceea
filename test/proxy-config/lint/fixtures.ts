import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The lint fixtures: `ID.fail.conf` (the rule fires on every line marked `# expect`) and `ID.pass.conf`. */
export const FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../fixtures/lint');

/** Every fixture file name. */
export const FIXTURE_FILES = readdirSync(FIXTURE_DIR).filter((name) => name.endsWith('.conf'));

/** The 1-based lines of a fixture marked `# expect`. */
export function expectedLines(name: string): number[] {
  return readFileSync(join(FIXTURE_DIR, name), 'utf8')
    .split('\n')
    .flatMap((line, index) => (/#\s*expect\s*$/.test(line) ? [index + 1] : []));
}
