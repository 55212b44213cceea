import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADOPTION_REFUSALS } from '../../proxy-config/core/adopt/adoption-refusals.js';
import { SERVING_LINE_RULE } from '../../proxy-config/core/adopt/serving-lines.js';

const page = readFileSync(new URL('../../docs/nginx-as-it-is.md', import.meta.url), 'utf8');

describe('the refusals as docs/nginx-as-it-is.md lists them', () => {
  it('has a row for every refusal, in the order they are tried, under the heading the rows link to', () => {
    const rows = page
      .split('\n')
      .flatMap((line) => /^\| `([a-z-]+)` \|/.exec(line)?.slice(1) ?? [])
      .filter((id) => ADOPTION_REFUSALS.some((row) => row.id === id));
    expect(rows).toEqual(ADOPTION_REFUSALS.map((row) => row.id));
    const anchor = ADOPTION_REFUSALS[0]!.runbook.split('#')[1]!;
    expect(page).toContain(`\n## ${anchor.replaceAll('-', ' ').replace(/^./, (c) => c.toUpperCase())}\n`);
  });

  it('has the row of the rule tried on a planned change, under the same heading', () => {
    const section = page.split('\n## What proxyops refuses\n')[1]!.split('\n## ')[0]!;
    expect(section).toMatch(new RegExp(`\\n\\| \`${SERVING_LINE_RULE.id}\` \\|`));
    expect(SERVING_LINE_RULE.runbook).toBe(ADOPTION_REFUSALS[0]!.runbook);
  });
});
