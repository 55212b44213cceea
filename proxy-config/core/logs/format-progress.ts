/** A long `logs stats` run shows its progress line once it has run this long. */
export const PROGRESS_AFTER_MS = 2000;

/** Where a run is: bytes read of the total (compressed bytes for `.gz`), and the time it has taken. */
export interface ProgressFigures {
  read: number;
  total: number;
  elapsedMs: number;
}

/** Bytes as people read them on this page's neighbours (the bench and `ls -h`): decimal units. */
export function formatBytes(bytes: number): string {
  if (bytes < 1e3) return `${bytes} B`;
  const [unit, size] = bytes < 1e6 ? ['kB', 1e3] : bytes < 1e9 ? ['MB', 1e6] : ['GB', 1e9];
  const value = bytes / (size as number);
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit as string}`;
}

/** A duration to the second: `45 s`, `3 min 05 s`, `2 h 07 min`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * The progress line of a long run, e.g. `proxyops: read 412 MB of 1.1 GB (38 %), 206 MB/s, 3 s left`:
 * the rate is the average since the start, and the time left what is left at that rate.
 */
export function formatProgress({ read, total, elapsedMs }: ProgressFigures): string {
  const done = Math.min(read, total);
  const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
  const rate = elapsedMs > 0 ? done / (elapsedMs / 1000) : 0;
  const left = rate > 0 ? formatDuration(((total - done) / rate) * 1000) : '?';
  return `proxyops: read ${formatBytes(done)} of ${formatBytes(total)} (${percent} %), ${formatBytes(Math.round(rate))}/s, ${left} left`;
}
