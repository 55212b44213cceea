import { describe, expect, it } from 'vitest';
import { planAdoption } from '../../../../proxy-config/core/adopt/plan-adoption.js';
import { planUndo } from '../../../../proxy-config/core/adopt/managed-lines.js';
import { applied, CONF, debianTree, PAIRED, specUpstreams, tree, UPSTREAMS } from './adopt-fixtures.js';

const FILE = '/etc/nginx/conf.d/upstreams.conf';

/** The lines a change added: after minus before, by position (the change only ever adds lines). */
function withoutAdded(after: string): string {
  return after
    .split(/(?<=\n)/)
    .filter((line) => !line.includes('# proxyops: alternate of'))
    .join('');
}

describe('planAdoption', () => {
  it('adds the alternate after each server line, same indentation and parameters, nothing else', () => {
    const before = debianTree();
    const { change, record } = planAdoption(before, specUpstreams(PAIRED));
    expect(change.files.map((f) => f.path)).toEqual([FILE]);
    const after = change.files[0]!.after;
    expect(after).toBe(
      [
        '# Upstreams of the shop (hand-written, 2019)',
        'upstream app {',
        '\t# the two app servers',
        '\tserver 127.0.0.2:3001   max_fails=3  fail_timeout=10s;   # blue',
        '\tserver 127.0.0.3:3001 max_fails=3 fail_timeout=10s;  # proxyops: alternate of 127.0.0.2:3001',
        '    server 127.0.0.4:3001 max_fails=2 fail_timeout=5s weight=2;',
        '    server 127.0.0.5:3001 max_fails=2 fail_timeout=5s weight=2;  # proxyops: alternate of 127.0.0.4:3001',
        '',
        '\tkeepalive 16;',
        '}',
        '',
        'upstream   legacy {',
        '  server 10.0.0.9:8080;',
        '}',
        '',
      ].join('\n'),
    );
    // Every other line of the file, and every other file, byte-identical.
    expect(withoutAdded(after)).toBe(UPSTREAMS);
    expect(change.files[0]!.before).toBe(UPSTREAMS);
    expect(record.upstreams.app).toEqual({
      file: FILE,
      scope: 'block',
      original: UPSTREAMS.split('\n').slice(1, 8).join('\n') + '\n',
      managed: after.split('\n').slice(1, 10).join('\n') + '\n',
    });
  });

  it('keeps CRLF endings and a missing final newline, in a server file the block includes', () => {
    const servers = 'server 127.0.0.2:3001 weight=5;\r\n\tserver 127.0.0.4:3001 ;';
    const before = tree({
      [CONF]: 'events {}\r\nhttp {\r\n  upstream app {\r\n    include app-servers.conf;\r\n  }\r\n}',
      '/etc/nginx/app-servers.conf': servers,
    });
    const { change, record } = planAdoption(before, specUpstreams(PAIRED));
    expect(change.files).toEqual([
      {
        path: '/etc/nginx/app-servers.conf',
        before: servers,
        after:
          'server 127.0.0.2:3001 weight=5;\r\n' +
          'server 127.0.0.3:3001 weight=5;  # proxyops: alternate of 127.0.0.2:3001\r\n' +
          '\tserver 127.0.0.4:3001 ;\r\n' +
          '\tserver 127.0.0.5:3001;  # proxyops: alternate of 127.0.0.4:3001',
      },
    ]);
    expect(record.upstreams.app).toMatchObject({ file: '/etc/nginx/app-servers.conf', scope: 'file' });
  });

  it('adds the line after a server statement that spans lines, and copies IPv6 and socket-free params', () => {
    const before = tree({
      [CONF]: 'http {\n  upstream app {\n    server [::1]:3001\n      max_fails=1;\n  }\n}\n',
    });
    const ups = specUpstreams({ app: { servers: [{ host: '::1', port: 3001, alternate: '[::1]:3002' }] } });
    const after = planAdoption(before, ups).change.files[0]!.after;
    expect(after).toBe(
      'http {\n  upstream app {\n    server [::1]:3001\n      max_fails=1;\n' +
        '    server [::1]:3002 max_fails=1;  # proxyops: alternate of [::1]:3001\n  }\n}\n',
    );
  });

  it('is idempotent: a second plan on the adopted tree changes nothing and keeps the record', () => {
    const before = debianTree();
    const first = planAdoption(before, specUpstreams(PAIRED));
    const adopted = applied(before, first.change);
    const again = planAdoption(adopted, specUpstreams(PAIRED), first.record);
    expect(again.change.files).toEqual([]);
    expect(again.record).toEqual(first.record);
    // Without the record too (a state directory lost): both addresses are listed already.
    expect(planAdoption(adopted, specUpstreams(PAIRED)).change.files).toEqual([]);
  });

  it('leaves a block that lists both addresses already, and a spec without alternates, unchanged', () => {
    const before = debianTree();
    const plain = specUpstreams({ app: { servers: [{ host: '127.0.0.2', port: 3001 }] } });
    const { change, record } = planAdoption(before, plain);
    expect(change.files).toEqual([]);
    expect(record.upstreams.app!.original).toBe(record.upstreams.app!.managed);
    const both = specUpstreams({
      app: { servers: [{ host: '127.0.0.2', port: 3001, alternate: '127.0.0.4:3001' }] },
    });
    expect(planAdoption(before, both).change.files).toEqual([]);
  });

  it("adopts a second upstream later and keeps the first one's original text for undo", () => {
    const before = debianTree();
    const first = planAdoption(before, specUpstreams(PAIRED));
    const adopted = applied(before, first.change);
    const more = specUpstreams({
      ...PAIRED,
      legacy: { servers: [{ host: '10.0.0.9', port: 8080, alternate: 8081 }] },
    });
    const second = planAdoption(adopted, more, first.record);
    expect(second.record.upstreams.app).toEqual(first.record.upstreams.app);
    expect(second.change.files[0]!.after).toContain(
      '  server 10.0.0.9:8081;  # proxyops: alternate of 10.0.0.9:8080\n}',
    );
    const both = applied(adopted, second.change);
    const undo = planUndo(both, second.record);
    expect(undo.files).toEqual([{ path: FILE, before: both.files.get(FILE), after: UPSTREAMS }]);
  });
});

describe('planUndo', () => {
  it('gives back the exact bytes, CRLF and a missing final newline included; then nothing to undo', () => {
    const text =
      'events {}\r\nhttp {\r\n\tupstream app {\r\n\t\tserver 127.0.0.2:3001;\r\n\t\tserver 127.0.0.4:3001;\r\n\t}\r\n}';
    const before = tree({ [CONF]: text });
    const { change, record } = planAdoption(before, specUpstreams(PAIRED));
    expect(change.files[0]!.after).toContain(
      '\t\tserver 127.0.0.3:3001;  # proxyops: alternate of 127.0.0.2:3001\r\n',
    );
    const adopted = applied(before, change);
    const undo = planUndo(adopted, record);
    expect(undo.files).toEqual([{ path: CONF, before: change.files[0]!.after, after: text }]);
    expect(planUndo(applied(adopted, undo), record).files).toEqual([]);
  });

  it("keeps the user's edits outside the block: a new site, a new location above the block", () => {
    const before = debianTree();
    const { change, record } = planAdoption(before, specUpstreams(PAIRED));
    const adopted = applied(before, change);
    const edited = new Map(adopted.files);
    edited.set(FILE, `upstream extra { server 10.1.1.1:80; }\n\n${adopted.files.get(FILE)!}`);
    edited.set('/etc/nginx/sites-enabled/blog', 'server { listen 8081; }\n');
    const undo = planUndo({ conf: CONF, files: edited }, record);
    expect(undo.files.map((f) => f.after)).toEqual([
      `upstream extra { server 10.1.1.1:80; }\n\n${UPSTREAMS}`,
    ]);
  });
});
