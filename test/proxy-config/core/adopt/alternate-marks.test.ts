import { describe, expect, it } from 'vitest';
import { alternateLinesOf } from '../../../../proxy-config/core/adopt/alternate-marks.js';
import { planUndo } from '../../../../proxy-config/core/adopt/managed-lines.js';
import { planAdoption } from '../../../../proxy-config/core/adopt/plan-adoption.js';
import { applied, debianTree, PAIRED, specUpstreams, UPSTREAMS } from './adopt-fixtures.js';

const FILE = '/etc/nginx/conf.d/upstreams.conf';

/** The paired adoption of the Debian tree, applied, and its record. */
function adopted() {
  const before = debianTree();
  const { change, record } = planAdoption(before, specUpstreams(PAIRED));
  return { tree: applied(before, change), record };
}

describe('alternate lines proxyops added earlier', () => {
  it('are replaced when the alternate changes and removed when it is dropped; nothing else moves', () => {
    const { tree, record } = adopted();
    const moved = specUpstreams({
      app: {
        servers: [
          { host: '127.0.0.2', port: 3001, alternate: '127.0.0.6:3001' },
          { host: '127.0.0.4', port: 3001 },
        ],
      },
    });
    const { change, record: next } = planAdoption(tree, moved, record);
    const after = change.files[0]!.after;
    expect(after).toBe(
      UPSTREAMS.replace(
        '# blue\n',
        '# blue\n\tserver 127.0.0.6:3001 max_fails=3 fail_timeout=10s;  # proxyops: alternate of 127.0.0.2:3001\n',
      ),
    );
    // The original text before the first adoption is kept: undo still gives back the 2019 bytes.
    const now = applied(tree, change);
    expect(planUndo(now, next).files[0]!.after).toBe(UPSTREAMS);
    const none = specUpstreams({ app: { servers: [{ host: '127.0.0.2', port: 3001 }] } });
    expect(planAdoption(now, none, next).change.files[0]!.after).toBe(UPSTREAMS);
  });

  it('keep a line the spec still asks for, and drop one whose primary changed its parameters', () => {
    const { tree, record } = adopted();
    expect(planAdoption(tree, specUpstreams(PAIRED), record).change.files).toEqual([]);
    const text = tree.files.get(FILE)!;
    // The primary's parameters edited and reloaded by hand: not drift (the record's managed text follows).
    const edited = text.replace(
      '\tserver 127.0.0.2:3001   max_fails=3',
      '\tserver 127.0.0.2:3001   max_fails=5',
    );
    const files = new Map(tree.files).set(FILE, edited);
    const { change } = planAdoption({ conf: tree.conf, files }, specUpstreams(PAIRED));
    expect(change.files[0]!.after).toBe(
      edited.replace(
        '127.0.0.3:3001 max_fails=3 fail_timeout=10s;',
        '127.0.0.3:3001 max_fails=5 fail_timeout=10s;',
      ),
    );
  });

  it("copy the primary's own parameters: a `down` primary gets a `down` alternate", () => {
    const before = debianTree(UPSTREAMS.replace('weight=2;', 'weight=2 down;'));
    const after = planAdoption(before, specUpstreams(PAIRED)).change.files[0]!.after;
    expect(after).toContain(
      '    server 127.0.0.5:3001 max_fails=2 fail_timeout=5s weight=2 down;  # proxyops: alternate of 127.0.0.4:3001\n',
    );
  });

  it('are listed by file and line, so a state directory without a record can name them', () => {
    expect(alternateLinesOf(debianTree())).toEqual([]);
    expect(alternateLinesOf(adopted().tree)).toEqual([`${FILE}:5`, `${FILE}:7`]);
  });
});

describe('planUndo of a block put back by hand', () => {
  it('changes nothing: the block already is the recorded original', () => {
    const { record } = adopted();
    expect(planUndo(debianTree(), record).files).toEqual([]);
  });
});

describe('planAdoption over a record whose block holds its original', () => {
  it('adopts again (a change recorded but never written is not drift), keeping the original for undo', () => {
    const { tree, record } = adopted();
    const { change, record: next } = planAdoption(debianTree(), specUpstreams(PAIRED), record);
    expect(change.files[0]!.after).toBe(tree.files.get(FILE));
    expect(next).toEqual(record);
  });
});
