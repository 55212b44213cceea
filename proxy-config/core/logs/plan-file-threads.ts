/** One input file of a statistics run, as the plan sees it. */
export interface PlannedFile {
  size: number;
  /** A `.gz` file: read whole by one thread (a gzip stream cannot be entered in the middle). */
  compressed: boolean;
}

/** How the files of a run are read: by how many threads, each file cut into how many byte ranges. */
export interface FileThreadPlan {
  /** Threads counting pieces, the main thread included. */
  threads: number;
  /** Per file, the number of byte ranges it is cut into (1 for a `.gz` file). */
  ranges: number[];
  /**
   * Pieces (indexes into the files' ranges laid end to end) in the order threads take them: `.gz`
   * files first, largest first, then the ranges of plain files in order. A `.gz` file is the longest
   * piece and cannot be split, so starting those first lets the plain ranges fill in around them, and
   * the last thread to finish is not the one that took a big `.gz` file last.
   */
  order: number[];
}

/**
 * What a compressed byte costs against a plain one: inflating it and counting the ≈ 11 bytes it
 * gives. Measured on the 2-core build machine (docs/benchmarks.md, access logs): a rendered log
 * compresses ≈ 11:1 with gzip -6; inflating 1 GB takes ≈ 1.0 s of CPU and counting it ≈ 0.8 s.
 */
export const COMPRESSED_BYTE_COST = 20;

/**
 * One thread when the run's work (plain bytes, plus compressed bytes at COMPRESSED_BYTE_COST) is below
 * `splitMinBytes` (a worker's boot and the merge cost more than they save there). From it on, up to
 * `jobs` threads, each taking whole `.gz` files and ranges of plain files of about `rangeBytes` (every
 * thread gets at least one range when there are plain bytes to cut), but no more threads than pieces.
 */
export function planFileThreads(
  files: PlannedFile[],
  jobs: number,
  splitMinBytes: number,
  rangeBytes: number,
): FileThreadPlan {
  const plainBytes = files.reduce((sum, f) => sum + (f.compressed ? 0 : f.size), 0);
  const work = files.reduce((sum, f) => sum + (f.compressed ? f.size * COMPRESSED_BYTE_COST : f.size), 0);
  const split = work >= splitMinBytes && jobs > 1;
  // Small plain files forced to split (tests) still give every thread a range.
  const step = Math.max(1, Math.min(rangeBytes, Math.ceil(plainBytes / jobs)));
  const ranges = files.map((f) => (f.compressed || !split ? 1 : Math.max(1, Math.ceil(f.size / step))));
  const starts: number[] = [];
  let pieces = 0;
  for (const count of ranges) {
    starts.push(pieces);
    pieces += count;
  }
  const compressed = files
    .map((f, i) => ({ f, i }))
    .filter(({ f }) => f.compressed)
    .sort((a, b) => b.f.size - a.f.size || a.i - b.i)
    .map(({ i }) => starts[i]!);
  const plain = files.flatMap((f, i) =>
    f.compressed ? [] : Array.from({ length: ranges[i]! }, (_, k) => starts[i]! + k),
  );
  const order = [...compressed, ...plain];
  return {
    threads: split ? Math.max(1, Math.min(jobs, order.length)) : 1,
    ranges,
    order,
  };
}
