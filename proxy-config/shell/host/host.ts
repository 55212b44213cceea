import type { Readable, Writable } from 'node:stream';
import type { ProcessInfo } from '../process/proc-process-tree.js';

/** What a command run on a host printed and how it ended. */
export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A file as a host sees it (lstat: a symlink is itself). */
export interface HostStat {
  kind: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  /** Permission bits (0o7777). */
  mode: number;
}

/** A long-running command on a host: its stdin, its stdout, and its end. */
export interface HostSession {
  stdin: Writable;
  stdout: Readable;
  /** Settles when the command ends; a transport failure (host lost) rejects with a one-line error. */
  done: Promise<RunResult>;
}

/**
 * The machine a workflow acts on: this one, or a host over SSH. Every effect a workflow has on a host
 * goes through one of these; file contents travel as data (stdin), never on a command line.
 */
export interface Host {
  /** How messages name the host: `this machine`, or the ssh destination. */
  readonly name: string;
  /** Runs argv (no shell); resolves with its exit code, whatever it is. `input` goes to its stdin. */
  run(argv: readonly string[], options?: { input?: string }): Promise<RunResult>;
  /** Starts argv and streams with it (a step protocol over stdin/stdout). */
  open(argv: readonly string[]): HostSession;
  /** A file's text; HOST_FILE_UNREADABLE naming host and path when it cannot be read. */
  readFile(path: string): Promise<string>;
  /** Replaces a file in one rename (a reader sees the old or the new text, never a mix). */
  writeFileAtomic(path: string, text: string, mode?: number): Promise<void>;
  /** What is at `path`; undefined when nothing is. */
  stat(path: string): Promise<HostStat | undefined>;
  /** Sends a signal to a process there; HOST_SIGNAL_FAILED when it cannot. */
  signal(pid: number, signal: NodeJS.Signals): Promise<void>;
  /** The processes running there, from its /proc. */
  listProcesses(): Promise<ProcessInfo[]>;
  /** Ends what the host keeps open (an SSH control connection). */
  close(): Promise<void>;
}
