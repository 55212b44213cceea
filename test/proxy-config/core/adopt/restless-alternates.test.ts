import { describe, expect, it } from 'vitest';
import { neverRests, restlessAlternates } from '../../../../proxy-config/core/adopt/restless-alternates.js';
import { tree } from './adopt-fixtures.js';

describe('alternates nginx never rests', () => {
  it('finds max_fails=0 and fail_timeout=0 in any unit, nothing else', () => {
    expect(neverRests(['fail_timeout=0'])).toBe('fail_timeout=0');
    expect(neverRests(['fail_timeout=0s', 'max_fails=3'])).toBe('fail_timeout=0');
    expect(neverRests(['max_fails=0', 'fail_timeout=10s'])).toBe('max_fails=0');
    expect(neverRests(['max_fails=1', 'fail_timeout=1s', 'weight=0'])).toBeUndefined();
    expect(neverRests([])).toBeUndefined();
  });

  it("warns once per marked line, naming it; the primary and unmarked lines are the user's own", () => {
    const file = '/etc/nginx/sites-enabled/mastodon';
    const text = [
      'upstream backend {',
      '    server 127.0.0.1:18301 fail_timeout=0;   # Mastodon ships it',
      '    server 127.0.0.1:18311 fail_timeout=0;  # proxyops: alternate of 127.0.0.1:18301',
      '\tserver 127.0.0.1:18302 max_fails=0;',
      '\tserver 127.0.0.1:18312 max_fails=0;  # proxyops: alternate of 127.0.0.1:18302',
      '    server 127.0.0.1:18303;',
      '    server 127.0.0.1:18313;  # proxyops: alternate of 127.0.0.1:18303',
      '}',
      '',
    ].join('\n');
    expect(restlessAlternates(tree({ [file]: text }))).toEqual([
      `warning: ${file}:3: the alternate 127.0.0.1:18311 has fail_timeout=0 (copied from its primary's line): nginx never rests it, so every request nginx sends there costs a refused connect and an error.log line until a deploy starts an instance on it; give the primary's line fail_timeout above 0 to have it rested (proxyops copies the parameters as they are)`,
      `warning: ${file}:5: the alternate 127.0.0.1:18312 has max_fails=0 (copied from its primary's line): nginx never rests it, so every request nginx sends there costs a refused connect and an error.log line until a deploy starts an instance on it; give the primary's line max_fails above 0 to have it rested (proxyops copies the parameters as they are)`,
    ]);
  });
});
