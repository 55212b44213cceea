import { describe, expect, it } from 'vitest';
import {
  CANCEL_REQUEST,
  ENCRYPTION_REQUESTS,
  splitPgFrames,
  untypedCode,
} from '../../../proxy-config/core/deploy/pg-message-frames.js';

function typed(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

function untyped(code: number, body: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(code, 4);
  return Buffer.concat([head, body]);
}

describe('splitPgFrames', () => {
  it('reads the untyped startup packet, then typed messages, ending batches at Sync and Query', () => {
    const bytes = Buffer.concat([
      untyped(196608, Buffer.from('user\0postgres\0\0')),
      typed('P', Buffer.from('\0SELECT 1\0\0\0')),
      typed('B', Buffer.alloc(8)),
      typed('E', Buffer.alloc(5)),
      typed('S'),
      typed('Q', Buffer.from('SELECT 2\0')),
    ]);
    const { frames, rest } = splitPgFrames(bytes, true);
    expect(frames.map((f) => [f.type, f.untyped, f.endsBatch])).toEqual([
      ['', true, true],
      ['P', false, false],
      ['B', false, false],
      ['E', false, false],
      ['S', false, true],
      ['Q', false, true],
    ]);
    expect(untypedCode(frames[0]!)).toBe(196608);
    expect(rest.length).toBe(0);
  });

  it('keeps an unfinished message for the next chunk', () => {
    const whole = Buffer.concat([typed('S'), typed('Q', Buffer.from('SELECT 1\0'))]);
    const first = splitPgFrames(whole.subarray(0, 9), false);
    expect(first.frames.map((f) => f.type)).toEqual(['S']);
    const second = splitPgFrames(Buffer.concat([first.rest, whole.subarray(9)]), false);
    expect(second.frames.map((f) => f.type)).toEqual(['Q']);
    expect(second.rest.length).toBe(0);
  });

  it('names the SSL, GSS and cancel requests', () => {
    const [ssl] = splitPgFrames(untyped(80877103), true).frames;
    const [cancel] = splitPgFrames(untyped(CANCEL_REQUEST, Buffer.alloc(8)), true).frames;
    expect(ENCRYPTION_REQUESTS.has(untypedCode(ssl!))).toBe(true);
    expect(ENCRYPTION_REQUESTS.has(80877104)).toBe(true);
    expect(untypedCode(cancel!)).toBe(CANCEL_REQUEST);
  });
});
