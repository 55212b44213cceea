/** How a plain log file is counted: by how many threads, over how many byte ranges. */
export interface FileThreadPlan {
  threads: number;
  ranges: number;
}

/**
 * One thread below `splitMinBytes` (a worker's boot and the merge cost more than it saves there);
 * from it on, `jobs` threads over ranges of about `rangeBytes`, at least one range per thread.
 */
export function planFileThreads(
  size: number,
  jobs: number,
  splitMinBytes: number,
  rangeBytes: number,
): FileThreadPlan {
  if (size < splitMinBytes || jobs <= 1) return { threads: 1, ranges: 1 };
  return { threads: jobs, ranges: Math.max(jobs, Math.ceil(size / rangeBytes)) };
}
