import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CROSS_FIELD_RULES } from '../../proxy-config/core/spec/cross-field-rules.js';

const page = readFileSync(new URL('../../docs/proxy-config.md', import.meta.url), 'utf8');

/** The description of one field in the spec table of docs/proxy-config.md. */
function fieldRow(field: string): string {
  const row = page.split('\n').find((line) => line.startsWith(`| \`${field}\` |`));
  if (!row) throw new Error(`docs/proxy-config.md has no row for ${field}`);
  return row;
}

describe('the spec fields as docs/proxy-config.md describes them', () => {
  it('deploy: command or the lifecycle hooks, as the cross-field rule asks, neither required alone', () => {
    const row = fieldRow('upstreams.NAME.deploy');
    expect(row).not.toMatch(/`command` \(required\)/);
    for (const name of ['`command`', '`start`', '`stop`', 'deploy-command-or-hooks'])
      expect(row).toContain(name);
    // The rule the row cites exists under that id.
    expect(CROSS_FIELD_RULES.map((rule) => rule.id)).toContain('deploy-command-or-hooks');
  });
});
