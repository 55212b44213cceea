import { describe, expect, it } from 'vitest';
import { acceptQueueOf } from '../../../../proxy-config/core/host/listen-queue.js';

// As `ss -Hltn 'sport = :3001'` prints them.
const SS = [
  'LISTEN 3      511        127.0.0.2:3001      0.0.0.0:*',
  'LISTEN 0      511        127.0.0.3:3001      0.0.0.0:*',
  'LISTEN 2      128             [::]:3002         [::]:*',
].join('\n');

describe('the accept queue of a listener, from ss', () => {
  it('reads Recv-Q of the listener at the address, or of a wildcard one', () => {
    expect(acceptQueueOf(SS, '127.0.0.2', 3001)).toBe(3);
    expect(acceptQueueOf(SS, '127.0.0.3', 3001)).toBe(0);
    expect(acceptQueueOf(SS, '10.0.0.7', 3002)).toBe(2);
    expect(acceptQueueOf('LISTEN 4      511        [::1]:3003      [::]:*', '0:0:0:0:0:0:0:1', 3003)).toBe(4);
  });

  it('is undefined where no listener is listed', () => {
    expect(acceptQueueOf(SS, '127.0.0.4', 3001)).toBeUndefined();
    expect(acceptQueueOf('', '127.0.0.2', 3001)).toBeUndefined();
  });
});
