import { describe, expect, it } from 'vitest';
import { toAdoptionRecord } from '../../../../proxy-config/core/adopt/adoption-record.js';
import { findDrift, planUndo } from '../../../../proxy-config/core/adopt/managed-lines.js';
import { planAdoption } from '../../../../proxy-config/core/adopt/plan-adoption.js';
import type { NginxTree } from '../../../../proxy-config/core/adopt/tree.js';
import { applied, CONF, debianTree, PAIRED, specUpstreams, thrown } from './adopt-fixtures.js';

const FILE = '/etc/nginx/conf.d/upstreams.conf';

/** The paired adoption of the Debian tree, applied, and its record. */
function adopted() {
  const before = debianTree();
  const { change, record } = planAdoption(before, specUpstreams(PAIRED));
  return { tree: applied(before, change), record };
}

function edit(tree: NginxTree, file: string, change: (text: string) => string): NginxTree {
  const files = new Map(tree.files);
  files.set(file, change(tree.files.get(file)!));
  return { conf: CONF, files };
}

describe('findDrift', () => {
  it('finds none right after adoption, nor after hand edits outside the block', () => {
    const { tree, record } = adopted();
    expect(findDrift(tree, record)).toEqual([]);
    // Lines above the block move it down; a new site; the other upstream edited.
    let elsewhere = edit(tree, FILE, (t) => `upstream extra {\n  server 10.1.1.1:80;\n}\n${t}`);
    elsewhere = edit(elsewhere, FILE, (t) => t.replace('10.0.0.9:8080', '10.0.0.10:8080'));
    elsewhere = edit(elsewhere, '/etc/nginx/sites-enabled/shop', (t) => `${t}server { listen 8081; }\n`);
    expect(findDrift(elsewhere, record)).toEqual([]);
  });

  it('names each line changed by hand inside the block, where it is now', () => {
    const { tree, record } = adopted();
    const drifted = edit(tree, FILE, (t) =>
      t.replace('    server 127.0.0.5:3001', '    server 127.0.0.6:3001').replace('\tkeepalive 16;\n', ''),
    );
    expect(findDrift(drifted, record)).toEqual([
      {
        upstream: 'app',
        file: FILE,
        lines: [
          `${FILE}:7: removed "server 127.0.0.5:3001 max_fails=2 fail_timeout=5s weight=2;  # proxyops: alternate of 127.0.0.4:3001"`,
          `${FILE}:7: added "server 127.0.0.6:3001 max_fails=2 fail_timeout=5s weight=2;  # proxyops: alternate of 127.0.0.4:3001" (differs at column 16)`,
          `${FILE}:9: removed "keepalive 16;"`,
        ],
      },
    ]);
  });

  it('shows what cannot be seen: a trailing space, a tab, and the column where the line differs', () => {
    const { tree, record } = adopted();
    const drifted = edit(tree, FILE, (t) => t.replace('\tkeepalive 16;\n', '\tkeepalive\t16; \n'));
    expect(findDrift(drifted, record)[0]!.lines).toEqual([
      `${FILE}:9: removed "keepalive 16;"`,
      `${FILE}:9: added "keepalive\\t16; " (differs at column 10)`,
    ]);
    // The column counts the quoted text, which leaves the indentation out; a change there says so.
    const reindented = edit(tree, FILE, (t) => t.replace('\tkeepalive 16;\n', '    keepalive 16;\n'));
    expect(findDrift(reindented, record)[0]!.lines).toEqual([
      `${FILE}:9: removed "keepalive 16;"`,
      `${FILE}:9: added "keepalive 16;" (differs in its indentation)`,
    ]);
  });

  it('says when the block or its file is gone', () => {
    const { tree, record } = adopted();
    const renamed = edit(tree, FILE, (t) => t.replace('upstream app {', 'upstream app2 {'));
    expect(findDrift(renamed, record)).toEqual([
      { upstream: 'app', file: FILE, lines: [`${FILE} defines upstream app no longer`] },
    ]);
    const files = new Map(tree.files);
    files.delete(FILE);
    expect(findDrift({ conf: CONF, files }, record)[0]!.lines).toEqual([
      `${FILE} is no longer read by nginx`,
    ]);
  });

  it('makes the next adoption and the undo refuse with the lines, in one line', () => {
    const { tree, record } = adopted();
    const drifted = edit(tree, FILE, (t) => t.replace('max_fails=3 fail_timeout=10s;  #', 'max_fails=1;  #'));
    const expected =
      'ADOPT_DRIFT the lines proxyops manages were edited by hand (upstream app: ' +
      `${FILE}:5: removed "server 127.0.0.3:3001 max_fails=3 fail_timeout=10s;  # proxyops: alternate of 127.0.0.2:3001", ` +
      `${FILE}:5: added "server 127.0.0.3:3001 max_fails=1;  # proxyops: alternate of 127.0.0.2:3001" (differs at column 33)); ` +
      'nothing changed: put them back as proxyops left them (it does not guess which lines are meant)';
    expect(thrown(() => planAdoption(drifted, specUpstreams(PAIRED), record))).toBe(expected);
    expect(thrown(() => planUndo(drifted, record))).toBe(expected);
  });
});

describe('toAdoptionRecord', () => {
  it('reads back a record written as JSON, and refuses one that lost a field', () => {
    const { record } = adopted();
    expect(toAdoptionRecord(JSON.parse(JSON.stringify(record)), 'adoption.json')).toEqual(record);
    expect(toAdoptionRecord(undefined, 'adoption.json')).toBeUndefined();
    const cut = { upstreams: { app: { ...record.upstreams.app, managed: undefined } } };
    expect(thrown(() => toAdoptionRecord(JSON.parse(JSON.stringify(cut)), 'adoption.json'))).toMatch(
      /^STATE_UNREADABLE adoption\.json upstreams\.app is not \{ file, scope, original, managed \}/,
    );
    expect(thrown(() => toAdoptionRecord([], 'adoption.json'))).toMatch(
      /^STATE_UNREADABLE adoption\.json has no "upstreams"/,
    );
  });
});
