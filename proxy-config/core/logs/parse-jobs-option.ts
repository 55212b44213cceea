import { ProxyopsError } from '../errors.js';

/** At most 64 threads: each holds its own buffers (200 took 2 GB), and more than the cores buys nothing. */
export const MAX_JOBS = 64;

/** `--jobs N` of `logs stats`: a whole number from 1 to MAX_JOBS. */
export function parseJobs(text: string): number {
  const jobs = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!(Number.isInteger(jobs) && jobs >= 1 && jobs <= MAX_JOBS))
    throw new ProxyopsError('BAD_OPTION', `--jobs: "${text}" is not a whole number from 1 to ${MAX_JOBS}`);
  return jobs;
}

/** The threads to use when --jobs is not given: one per core, within 1..MAX_JOBS (a 128-core host gets 64). */
export function defaultJobs(cores: number): number {
  return Math.min(MAX_JOBS, Math.max(1, cores));
}
