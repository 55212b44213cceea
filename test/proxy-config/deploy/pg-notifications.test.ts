import { describe, expect, it } from 'vitest';
import { readListenChange, splitBackendOutput } from '../../../proxy-config/core/deploy/pg-notifications.js';

function typed(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

const query = (sql: string) => typed('Q', Buffer.from(`${sql}\0`));
const parse = (sql: string) => typed('P', Buffer.from(`\0${sql}\0\0\0`));

function notification(channel: string, payload: string): Buffer {
  const pid = Buffer.alloc(4);
  pid.writeInt32BE(42);
  return typed('A', Buffer.concat([pid, Buffer.from(`${channel}\0${payload}\0`)]));
}

describe('readListenChange', () => {
  it('reads LISTEN and UNLISTEN from simple queries and Parse messages, folding unquoted names', () => {
    expect(readListenChange('Q', query('LISTEN Orders'))).toEqual({ listen: 'orders' });
    expect(readListenChange('Q', query('listen "Orders";'))).toEqual({ listen: 'Orders' });
    expect(readListenChange('P', parse('UNLISTEN orders'))).toEqual({ unlisten: 'orders' });
    expect(readListenChange('Q', query('UNLISTEN *'))).toEqual({ unlistenAll: true });
  });

  it('ignores every other statement and message', () => {
    expect(readListenChange('Q', query("SELECT 'LISTEN x'"))).toBeUndefined();
    expect(readListenChange('Q', query("NOTIFY orders, 'x'"))).toBeUndefined();
    expect(readListenChange('B', typed('B', Buffer.from('LISTEN x\0')))).toBeUndefined();
  });
});

describe('splitBackendOutput', () => {
  it('takes notifications out, keeps everything else in order, and holds back an unfinished message', () => {
    const complete = typed('C', Buffer.from('SELECT 1\0'));
    const ready = typed('Z', Buffer.from('I'));
    const note = notification('orders', '{"id":1}');
    const bytes = Buffer.concat([complete, note, ready]);
    const split = splitBackendOutput(Buffer.concat([bytes, ready.subarray(0, 3)]));
    expect(split.passThrough).toEqual(Buffer.concat([complete, ready]));
    expect(split.notifications).toEqual([{ channel: 'orders', bytes: note }]);
    expect(split.rest).toEqual(ready.subarray(0, 3));
  });

  it('a message cut across chunks comes out whole once the rest arrives', () => {
    const note = notification('orders', 'payload');
    const first = splitBackendOutput(note.subarray(0, 7));
    expect(first.notifications).toEqual([]);
    expect(first.passThrough.length).toBe(0);
    const second = splitBackendOutput(Buffer.concat([first.rest, note.subarray(7)]));
    expect(second.notifications.map((n) => n.channel)).toEqual(['orders']);
  });
});
