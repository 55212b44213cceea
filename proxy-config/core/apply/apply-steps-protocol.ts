import type { VersionFiles, VersionRecord } from './config-change.js';
import type { ProxySpec } from '../spec/proxy-spec.js';
import type { LiveNginxPicture } from '../deploy/compare-live-with-plan.js';
import type { LiveLogs } from '../deploy/watch-sight.js';
import type { BlockServer } from '../deploy/block-server-params.js';

/**
 * What a change to a hand-written tree (a spec with `nginx.conf`) is made of. Each host computes its
 * own TreeChange from its own files: the hosts' trees may differ outside what the change touches.
 */
export type TreeSource =
  /** `config apply --tree DIR`: DIR's files by path relative to it (it stands for nginx.conf's directory). */
  | { kind: 'files'; files: Record<string, string>; links: Record<string, string> }
  /** Adopt the spec's upstreams in the host's tree (planAdoption), or put the blocks back. */
  | { kind: 'adopt' }
  | { kind: 'undo-adopt' }
  /** The last recorded change undone, as a change of its own. */
  | { kind: 'rollback' };

/** What a deploy across hosts records on each nginx host (its `instances.json`), as plain data. */
export type RecordedState = { version: 1; upstreams: Record<string, unknown[]> } & Record<string, unknown>;

/**
 * The step protocol between `config apply` with `proxies` and the proxyops on each nginx host
 * (`proxyops remote steps --target DIR`): one JSON object a line each way, over the ssh session's
 * stdin and stdout, so file contents never appear on a command line. Both ends are the same version
 * (checked before the session opens). The far side holds the target's locks until the session ends;
 * when its stdin ends before `finish`, it undoes whatever it did.
 */
export type StepRequest =
  /** Stage and test the render (the spec rides along for the far side's instances.json check). */
  | { step: 'prepare'; files: VersionFiles; spec: ProxySpec; specDigest: string; appliedAt: string }
  /** Commit as `version`, swap, reload and confirm the new workers. */
  | { step: 'switch'; version: string }
  /**
   * A change to the hand-written tree the spec's `nginx.conf` names: computed there from the host's
   * own files, tested on a staged copy (nginx -t); then switch (written in place, reload) and finish
   * or undo, as for `prepare`. Answered with `prepared`.
   */
  | { step: 'prepare-tree'; spec: ProxySpec; source: TreeSource; appliedAt: string }
  /** Only show what that tree change would touch on the host: a unified diff of its files. */
  | { step: 'diff-tree'; spec: ProxySpec; source: TreeSource }
  /** Keep it: prune old versions and release the locks. */
  | { step: 'finish' }
  /** Go back to what ran before the switch. */
  | { step: 'undo' }
  /** Only show what an apply would change: a unified diff against the live version. */
  | { step: 'diff'; files: VersionFiles }
  /** Only list the kept versions, as `config history` does (`tree`: a hand-written tree's, under its state dir). */
  | { step: 'history'; tree?: true }
  /**
   * A deploy across hosts: take the target's deploy lock and hold it until the session ends. Then
   * any number of the requests below, and of prepare/switch/finish|undo cycles (each a config change).
   */
  | {
      step: 'hold';
      accessLog: string;
      pidFile?: string;
      /**
       * `deploy plan`: the same answers without the lock, for the same look before acting; the
       * session then answers only `read-state` and `live` (it changes nothing).
       */
      look?: true;
      /**
       * Behind a hand-written config (the spec's `nginx`): the host's own tree names the pid file
       * and the access log of `upstream` (read there), in place of `pidFile` and `accessLog`.
       */
      adopted?: { conf: string; pidFile?: string; upstream: string; servers: BlockServer[] };
    }
  /**
   * Refuse (or again allow) the nginx workers' new connections to an address, on this host: how an
   * old instance of a blue/green pair closes its listener with nothing queued (see refuse-connects.ts).
   * What the session refused is allowed again when it ends, however it ends, or after `boundMs`.
   */
  | { step: 'refuse'; host: string; port: number; refuse: boolean; boundMs: number }
  /**
   * The access log's complete lines after mark `from`; without `from`, the mark where it ends (and,
   * asked, the last lines before). Marks are the session's, read across rotation (see LogTape).
   */
  | { step: 'log'; from?: number; baseline?: boolean }
  /** The state recorded under the target (instances.json). */
  | { step: 'read-state' }
  /** Records the state (and where the deploy is, or that it ended: `progress` absent). */
  | { step: 'write-state'; state?: RecordedState; progress?: { round: number; step: number; kind: string } }
  /** Only say how the target stands: live version, recorded state, a deploy holding it and where. */
  | { step: 'status' }
  /**
   * What the nginx behind `pidFile` runs (nginx -T), and the target's current main file: a deploy's
   * look before acting. With `adopted` (the spec's `nginx.conf`): whether the master runs that file,
   * and how the target's adoption record stands against the host's tree (the pid file is the one
   * the session's `hold` read from that tree).
   */
  | { step: 'live'; pidFile: string; upstream: string; adopted?: string };

/** The far side's answer to one request. */
export type StepReply =
  | {
      ok: true;
      step: 'prepared';
      nextVersion: number;
      current?: string;
      unchanged?: string;
      nginxRunning: boolean;
    }
  | {
      ok: true;
      step: 'switched';
      version: string;
      previous?: string;
      reload?: { masterPid: number; workersBefore: number[]; workersAfter: number[] };
    }
  | { ok: true; step: 'finished' | 'undone' }
  | { ok: true; step: 'diffed'; live?: string; diff: string }
  /** A hand-written tree's versions, oldest first; `record` as tree-history.ts keeps it (record.json). */
  | { ok: true; step: 'tree-history'; versions: Array<{ version: string; record: unknown }> }
  | {
      ok: true;
      step: 'history';
      versions: Array<{ version: string; current: boolean; previous: boolean; record?: VersionRecord }>;
    }
  /** `unrefusable`: why this host cannot refuse nginx's connections (no nft, not root, …). */
  | {
      ok: true;
      step: 'held';
      unrefusable?: string;
      /** Asked with `adopted`: what the host's tree names, and what its running nginx writes there. */
      adopted?: {
        pidFile: string;
        accessLog: string;
        logs: { live: LiveLogs } | { notRead: string };
        /** `servers` of `hold` with max_fails/fail_timeout as the host's running block has them. */
        servers: BlockServer[];
      };
    }
  | { ok: true; step: 'state-written' | 'refused' }
  | { ok: true; step: 'log'; text: string; end: number }
  | { ok: true; step: 'state'; state?: RecordedState }
  | {
      ok: true;
      step: 'status';
      live?: string;
      state?: RecordedState;
      /** A deploy holds the target: its pid there and the step it recorded last. */
      deploy?: { pid: number; round: number; step: number; kind: string };
    }
  /** No `picture` when no nginx master runs behind the pid file; no `current` when nothing was applied. */
  | {
      ok: true;
      step: 'live';
      target: string;
      picture?: LiveNginxPicture;
      current?: { file: string; text: string };
      /** Asked with `adopted`: the record that does not list the upstream, or the managed lines edited by hand. */
      unadopted?: string;
      /** With `unadopted` and no record at all: the lines of the tree that carry proxyops' mark (the record is elsewhere). */
      marked?: string[];
      drift?: string;
    }
  | { ok: false; error: { code: string; message: string } };
