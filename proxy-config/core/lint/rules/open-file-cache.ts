import { effectiveDirective, isHttpScope, walkDirectives } from '../../nginx-config/query.js';
import type { LintRule, RuleHit } from '../types.js';

/** gixy-ng's try_files_is_evil_too: each try_files candidate is a stat() on every request. */
export const TRY_FILES_WITHOUT_OPEN_FILE_CACHE: LintRule = {
  id: 'try-files-without-open-file-cache',
  severity: 'note',
  title: 'try_files without open_file_cache',
  message:
    'try_files checks its candidates on disk for every request (a stat() or open() each, $uri/ too), and without open_file_cache nothing of it is remembered: on slow or network disks, and under load, the lookups add latency to every static response.',
  fix: 'open_file_cache max=10000 inactive=60s; at the http or server level (with open_file_cache_valid as short as content changes need)',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      if (d.name !== 'try_files' || !isHttpScope({ block: d, chain })) return;
      // `try_files /dev/null @name;` is a jump to a named location, not a lookup.
      if (d.args.slice(0, -1).every((candidate) => candidate === '/dev/null')) return;
      const cache = effectiveDirective(chain, 'open_file_cache');
      if (cache && (cache.args[0] ?? 'off') !== 'off') return;
      hits.push({
        file: d.file,
        line: d.line,
        directive: d,
        what: cache
          ? `try_files ${d.args.join(' ')} with open_file_cache off (${cache.file}:${cache.line})`
          : `try_files ${d.args.join(' ')} without open_file_cache`,
      });
    });
    return hits;
  },
};
