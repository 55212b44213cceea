import { describe, expect, it } from 'vitest';
import { createLogTape } from '../../../proxy-config/core/logs/log-tape.js';

/** A pull that hands out what was queued since the last pull, as a reader across rotation does. */
function queue() {
  let pending: string[] = [];
  return {
    write: (text: string) => pending.push(text),
    pull: () => {
      const text = pending.join('');
      pending = [];
      return text;
    },
  };
}

describe('marks over a log pulled as a stream of lines', () => {
  it('reads every line once from each mark, whatever the file it came from', () => {
    const log = queue();
    const tape = createLogTape(log.pull);
    log.write('before\n');
    const from = tape.end();
    log.write('a\n');
    const first = tape.since(from);
    expect(first.text).toBe('a\n');
    // The reader drained the moved file, then read the new one from 0: the marks do not care.
    log.write('b\nc\n');
    const second = tape.since(first.end);
    expect(second.text).toBe('b\nc\n');
    expect(tape.since(second.end).text).toBe('');
  });

  it('serves marks held at once (rounds of a batch) and read again later (the drain after a signal)', () => {
    const log = queue();
    const tape = createLogTape(log.pull);
    const signalled = tape.end();
    log.write('x\n');
    const watching = tape.end();
    log.write('y\n');
    expect(tape.since(watching).text).toBe('y\n');
    expect(tape.since(signalled).text).toBe('x\ny\n');
  });

  it('keeps at most maxBytes, cut at a line start: an older mark reads from the oldest line kept', () => {
    const log = queue();
    const tape = createLogTape(log.pull, 8);
    const from = tape.end();
    log.write('111\n222\n333\n');
    expect(tape.since(from)).toEqual({ text: '222\n333\n', end: 12 });
    log.write('44\n');
    expect(tape.since(12)).toEqual({ text: '44\n', end: 15 });
    expect(tape.since(from).text).toBe('333\n44\n');
  });
});
