import type { NewInstanceKey } from '../core/deploy/log-window.js';
import type { InstanceAddress, ReplacePath } from '../core/deploy/plan-deploy.js';
import type { InstanceRecord } from '../shell/stack-state.js';

/** Where a new instance of a round listens, before it is started. */
export interface NewPlace {
  address: InstanceAddress & { socket?: string };
  /** Its log file's name under the logs directory. */
  logName: string;
  /** How the outcome of `start` names it (`127.0.0.1:3001`, `on /…/slot-0.1a2b.sock`). */
  where: string;
}

/**
 * The one part of a deploy round that differs between paths: how traffic moves from the old
 * instance to the new one and back. The round runner (`deploy-round.ts`) owns every other step:
 * start, readiness, the watch and its gates, rollback, the old instance's stop, `down`'s interruption.
 */
export interface TrafficSwitch {
  readonly path: ReplacePath;
  /** True when instances listen on TCP (a drain is measured by refused connections). */
  readonly tcp: boolean;
  /** Where the new instance replacing `old` goes. */
  place(old: InstanceRecord): Promise<NewPlace>;
  /** Status of GET `path` on `instance` at its own address (0 without an answer). */
  probe(instance: InstanceRecord, path: string): Promise<number>;
  /**
   * Sends traffic to `fresh`. `oldOut` says whether `old` stopped getting new requests with it (a
   * slot rename) or still does until it is taken out or leaves (a config change, an alternate).
   */
  switchIn(fresh: InstanceRecord, old: InstanceRecord, current: InstanceRecord[]): Promise<SwitchedIn>;
  /** Back to `servers` (the old instance serving again when it is among them), `fresh` out. */
  switchBack(fresh: InstanceRecord, old: InstanceRecord, servers: InstanceRecord[]): Promise<void>;
  /** Takes `old` out of nginx's upstream, leaving `rest` (the `remove` step); says how, where it has more to say. */
  takeOut(old: InstanceRecord, rest: InstanceRecord[]): Promise<string | void>;
  /** Who an instance is in the access log: the name it sends, or its address (see tallyInstance). */
  key(instance: InstanceRecord): NewInstanceKey;
  /**
   * Forgets what the switch made for an instance the round is done with (a slot's own socket name,
   * a refusal); `left` is false for an old instance told to stop that was not seen leaving.
   */
  release(instance: InstanceRecord, left: boolean): Promise<void>;
}

/** What `switchIn` did. */
export interface SwitchedIn {
  outcome: string;
  oldOut: boolean;
}
