import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/longest-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two cores: more workers only add contention for nginx, PGlite and PostgreSQL.
    maxWorkers: 2,
    // Longest first, by measured seconds: the wall time of two workers is their longer chain.
    sequence: { sequencer: LongestFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // One copy of graphql: our sources resolve its ESM build, so its adapters must too (as under Node).
    server: { deps: { inline: ['graphql-http', 'graphql-ws'] } },
  },
});
