import type { Readable, Writable } from 'node:stream';

/** What a command run on a host printed and how it ended. */
export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
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
 * goes through one of these: a command run there (most often the proxyops there, which reads the
 * host's files and processes itself); file contents travel as data (stdin), never on a command line.
 */
export interface Host {
  /** How messages name the host: `this machine`, or the ssh destination. */
  readonly name: string;
  /**
   * Runs argv (no shell); resolves with its exit code, whatever it is. `input` goes to its stdin.
   * `signal` ends it early (SIGTERM to the command here, or to ssh: the channel closes).
   */
  run(argv: readonly string[], options?: { input?: string; signal?: AbortSignal }): Promise<RunResult>;
  /** Starts argv and streams with it (a step protocol over stdin/stdout). */
  open(argv: readonly string[]): HostSession;
  /** Ends what the host keeps open (an SSH control connection). */
  close(): Promise<void>;
}
