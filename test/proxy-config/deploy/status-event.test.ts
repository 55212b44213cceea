import { describe, expect, it } from 'vitest';
import { watchStatusEvent } from '../../../proxy-config/core/deploy/status-event.js';
import { DEFAULT_5XX } from '../../../proxy-config/core/deploy/fivexx-gate.js';
import { DEFAULT_GATES, newInstance5xx } from '../../../proxy-config/core/deploy/watch-gates.js';
import { windowOf } from './window-of.js';

const window = windowOf;

describe('the status event of a watch', () => {
  it("reports the 5xx rise the gate judged (the new instance against its comparison), not the whole window's", () => {
    const before = window({ '200': 100 });
    const mine = window({ '200': 90, '500': 10 });
    const others = window({ '200': 300 });
    // The whole window: 10 of 400 (2.5 %) against 0 % before; the gate: 10 % against the others' 0 %.
    const fivexx = newInstance5xx(before, mine, others, { ...DEFAULT_5XX, ...DEFAULT_GATES });
    const event = watchStatusEvent({
      step: 4,
      before,
      window: window({ '200': 390, '500': 10 }),
      failed: true,
      fivexx,
      reason: 'the 5xx gate',
    });
    expect(event.verdict).toEqual({ verdict: 'regressed', increase: 0.1 });
    expect(event.reason).toBe('the 5xx gate');
    // Readiness-only: no 5xx verdict, the whole window's rise.
    expect(
      watchStatusEvent({ step: 4, before, window: window({ '200': 390, '500': 10 }), failed: false }).verdict
        .increase,
    ).toBe(0.025);
  });
});
