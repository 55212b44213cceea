/** Where a setting was read: file and 1-based line. */
export interface Place {
  file: string;
  line: number;
}

/**
 * How one workload stops, whatever declared it (a Kubernetes container, a systemd unit, a compose
 * service): the settings the drain formula of conventions §4.7.2 is checked against. Times in ms.
 */
export interface StopSetup {
  source: 'kubernetes' | 'systemd' | 'compose';
  /** `Deployment/api container app`, `app@.service`, `service web`. */
  name: string;
  place: Place;
  /** What polls readiness: the Kubernetes readiness probe or the compose healthcheck; absent when none is declared. */
  readiness?: { periodMs: number; threshold: number; place: Place };
  /** Kubernetes only: the preStop sleep before the stop signal (undefined: no preStop; null: a hook whose length is unknown). */
  preStopSleepMs?: number | null;
  preStopPlace?: Place;
  /** False for a sidecar with no port and no readiness probe: no balancer sends it requests. */
  servesTraffic: boolean;
  /** Time from the stop request to SIGKILL (null: never killed). */
  stopTimeoutMs: number | null;
  /** Where the stop timeout was set, or the workload's place when it is a default. */
  stopTimeoutPlace: Place;
  /** The setting that holds the stop timeout, as the file names it (`terminationGracePeriodSeconds`). */
  stopTimeoutName: string;
  /** The stop signal, `SIGTERM` form; undefined where the file cannot say (Kubernetes: the image's). */
  stopSignal?: string;
  stopSignalPlace?: Place;
  stopSignalName?: string;
}

/** One file read: the workloads it declares and what it passed over (kinds it does not know). */
export interface ReadStopSetups {
  setups: StopSetup[];
  notes: string[];
}
