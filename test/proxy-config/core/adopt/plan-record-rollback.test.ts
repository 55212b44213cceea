import { describe, expect, it } from 'vitest';
import { planAdoption } from '../../../../proxy-config/core/adopt/plan-adoption.js';
import { planRecordRollback } from '../../../../proxy-config/core/adopt/plan-record-rollback.js';
import { applied, debianTree, PAIRED, specUpstreams, thrown, UPSTREAMS } from './adopt-fixtures.js';

const FILE = '/etc/nginx/conf.d/upstreams.conf';

describe('planRecordRollback', () => {
  it('puts the blocks back on the text as it is now, keeping edits outside them; and forward again', () => {
    const before = debianTree();
    const { change, record } = planAdoption(before, specUpstreams(PAIRED));
    const adopted = applied(before, change);
    const files = new Map(adopted.files).set(FILE, `# reviewed\n${adopted.files.get(FILE)!}`);
    const edited = { conf: adopted.conf, files };
    const back = planRecordRollback(edited, record, undefined);
    expect(back.files.map((f) => f.after)).toEqual([`# reviewed\n${UPSTREAMS}`]);
    const again = planRecordRollback(applied(edited, back), undefined, record);
    expect(again.files.map((f) => f.after)).toEqual([files.get(FILE)]);
  });

  it('refuses (ADOPT_DRIFT) when a block no longer holds what the version left', () => {
    const before = debianTree();
    const { record } = planAdoption(before, specUpstreams(PAIRED));
    // The adoption's text is not there: the block still is the original.
    expect(thrown(() => planRecordRollback(before, record, undefined))).toMatch(
      /^ADOPT_DRIFT .*upstream app: /,
    );
  });
});
