import type { VersionFiles, VersionRecord } from './config-change.js';
import type { ProxySpec } from '../spec/proxy-spec.js';

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
  /** Keep it: prune old versions and release the locks. */
  | { step: 'finish' }
  /** Go back to what ran before the switch. */
  | { step: 'undo' }
  /** Only show what an apply would change: a unified diff against the live version. */
  | { step: 'diff'; files: VersionFiles }
  /** Only list the kept versions, as `config history` does. */
  | { step: 'history' };

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
  | {
      ok: true;
      step: 'history';
      versions: Array<{ version: string; current: boolean; previous: boolean; record?: VersionRecord }>;
    }
  | { ok: false; error: { code: string; message: string } };
