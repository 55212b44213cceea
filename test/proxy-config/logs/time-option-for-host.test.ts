import { describe, expect, it } from 'vitest';
import { timeOptionForHost } from '../../../proxy-config/core/logs/parse-time-option.js';

describe('--since/--until sent to another host (logs stats --host, diagnose --host)', () => {
  const now = Date.UTC(2026, 10, 27, 4, 0, 0);

  it('turns a duration into the instant it means here, in UTC', () => {
    expect(timeOptionForHost('15m', '--since', now)).toBe('2026-11-27T03:45:00.000Z');
    expect(timeOptionForHost(' 2h', '--until', now)).toBe('2026-11-27T02:00:00.000Z');
  });

  it('passes every other form as given: a zoneless ISO time is the host’s local time, not ours', () => {
    for (const text of [
      '2026-11-21T10:30:00',
      '2026-11-21',
      '2026-11-21T10:30:00+09:00',
      '21/Nov/2026:10:30:00 +0100',
      '1795000000',
    ])
      expect(timeOptionForHost(text, '--since', now)).toBe(text);
  });

  it('refuses what is no time here, before any host is reached', () => {
    expect(() => timeOptionForHost('yesterday', '--since', now)).toThrow(
      /--since: "yesterday" is not a time/,
    );
  });
});
