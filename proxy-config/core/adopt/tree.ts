/**
 * A hand-written nginx config as proxyops adopts it (issue 36): every file nginx reads, by the path
 * nginx names it (`include` resolved by the one reader, symlinks not followed), with its text.
 */
export interface NginxTree {
  /** The main file the master runs (`-c`). */
  conf: string;
  files: ReadonlyMap<string, string>;
}

/** One file's whole text before and after a change; `before` is '' for a new file. */
export interface FileChange {
  path: string;
  before: string;
  after: string;
}

/**
 * What adoption, undo, rollback and `--tree` do to a tree: whole texts of the files that change
 * (none: nothing to do). One shell module tests and applies it, so every edit is atomic alike.
 */
export interface TreeChange {
  conf: string;
  files: FileChange[];
}

/**
 * The lines proxyops manages for one upstream: the whole lines of its `upstream NAME { }` block
 * (`scope: 'block'`), or the whole file the block includes its server lines from (`scope: 'file'`),
 * as they were before adoption and as adoption left them.
 */
export interface ManagedLines {
  file: string;
  scope: 'block' | 'file';
  original: string;
  managed: string;
}

/** What proxyops adopted, kept in its state directory: drift is found and undo is done from it. */
export interface AdoptionRecord {
  upstreams: Record<string, ManagedLines>;
}
