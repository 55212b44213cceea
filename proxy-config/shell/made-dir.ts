import { mkdir, rmdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Runs `work` in `dir`, made first (0755) when missing. Whatever the outcome, a directory this call
 * made and that is still empty afterwards (the locks are gone; nothing was written) is removed
 * again: a refused run, or one with nothing to do, leaves no trace (issue 36: a wrong --target left
 * an empty directory behind a run that said "nothing changed"). A directory that holds anything stays.
 */
export async function inMadeDir<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const made = await mkdir(dir, { recursive: true, mode: 0o755 });
  try {
    return await work();
  } finally {
    if (made !== undefined) await removeEmpty(dir, made);
  }
}

/** Removes `dir`, then each parent up to `top`, while they are empty (rmdir refuses any other). */
async function removeEmpty(dir: string, top: string): Promise<void> {
  for (let at = dir; ; at = dirname(at)) {
    if (
      !(await rmdir(at).then(
        () => true,
        () => false,
      ))
    )
      return;
    if (at === top || dirname(at) === at) return;
  }
}
