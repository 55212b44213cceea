/** The name a rotated log gets: `access.log` → `access.log.20261122-023100`, then `.1`, `.2` if taken. */
export function toRotatedPath(log: string, now: Date, isTaken: (path: string) => boolean): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const base = `${log}.${stamp}`;
  if (!isTaken(base) && !isTaken(`${base}.gz`)) return base;
  for (let n = 1; ; n++) {
    const candidate = `${base}.${n}`;
    if (!isTaken(candidate) && !isTaken(`${candidate}.gz`)) return candidate;
  }
}
