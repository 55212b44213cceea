import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Two cores: more workers only add contention for nginx, PGlite and PostgreSQL.
    maxWorkers: 2,
    // Each worker runs its files one after another in one process: a fresh process and module graph
    // per file cost about 1.5 s each (271 files, a third of the suite's wall time on 2 cores; the
    // pure and lint files ran in 66 s instead of 105). The files restore what they change
    // (process.env, spies, timers) and share nothing else.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default'],
    // One copy of graphql: our sources resolve its ESM build, so its adapters must too (as under Node).
    server: { deps: { inline: ['graphql-http', 'graphql-ws'] } },
  },
});
