import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Writes rendered files under `dir`, world-readable (nginx workers run as an unprivileged user). */
export async function writeRenderedFiles(dir: string, files: Record<string, string>): Promise<string[]> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await chmod(dir, 0o755);
  const written: string[] = [];
  for (const name of Object.keys(files).sort()) {
    const path = join(dir, name);
    await mkdir(dirname(path), { recursive: true, mode: 0o755 });
    await writeFile(path, files[name]!, { mode: 0o644 });
    written.push(path);
  }
  return written;
}
