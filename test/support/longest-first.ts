import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The measured seconds per file; none (every file unknown, by path) before the first measurement. */
function measured(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(new URL('../file-durations.json', import.meta.url), 'utf8')) as Record<
      string,
      number
    >;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

/**
 * Test files by their measured duration, longest first, from `test/file-durations.json` (seconds per
 * file; `npm run test:durations -- REPORT` writes it from a JSON report). On two workers the suite's
 * wall time is its longest chain: vitest orders a fresh clone (no cache, as in CI) by file size,
 * which started the fleet deploy (4 minutes) near the end and left 7 minutes with one worker idle.
 * Files not measured yet go first, as vitest puts unknown files first; ties by path, for a stable order.
 */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = measured();
    const root = this.ctx.config.root;
    const took = (file: TestSpecification) =>
      seconds[relative(root, file.moduleId)] ?? Number.MAX_SAFE_INTEGER;
    return [...files].sort((a, b) => took(b) - took(a) || a.moduleId.localeCompare(b.moduleId));
  }
}
