import type { BlockScope } from '../nginx-config/query.js';
import type { NginxDirective } from '../nginx-config/types.js';
import type { AccessRecord } from './access-record.js';
import type { ClassifiedErrorLine } from './classify-error-log.js';
import type { SettingInEffect } from './setting-in-effect.js';
import type { Symptom } from './symptoms.js';

/** Effective proxy settings of one location, as diagnosis needs them. */
export interface LocationFacts {
  /** The parsed `location` block, so nginx's pick for a path maps back to its facts. */
  block: NginxDirective;
  /** Where it is, for evidence lines: `FILE:LINE server 127.0.0.1:8080 location /api`. */
  where: string;
  /** The `server` block it is in. */
  server: NginxDirective | null;
  path: string;
  /** An exact-match location (`location = /path`). */
  exact: boolean;
  /** client_max_body_size in bytes (nginx default 1m; 0 means unlimited). */
  clientMaxBodySize: number;
  /** Where client_max_body_size and proxy_read_timeout of this location are set, and can be changed. */
  clientMaxBodySizeSet: SettingInEffect;
  proxyReadTimeoutSet: SettingInEffect;
  proxyPass: string | null;
  proxyReadTimeoutMs: number;
  proxyHttpVersion: string;
  /** Header names set with proxy_set_header, lower-case, with their values. */
  proxySetHeaders: Record<string, string>;
  /** keepalive of the upstream block proxy_pass names; null when it names none or sets none. */
  upstreamKeepalive: number | null;
  /** Upstream servers (`host:port`) this location proxies to, when known. */
  upstreamServers: string[];
}

/** What a config says, reduced to the facts the rules read. */
export interface ConfigEvidence {
  source: string;
  /** The http `server` blocks, for nginx's location selection. */
  servers: BlockScope[];
  locations: LocationFacts[];
  workerRlimitNofile: number | null;
  workerConnections: number | null;
}

/** One answer of a live probe. */
export interface ProbeAnswer {
  status: number;
  server: string | null;
  /** The body is nginx's own error page (`<center>nginx…</center>`), so nginx produced the status. */
  nginxPage: boolean;
  location: string | null;
  cacheControl: string | null;
  age: string | null;
  contentType: string | null;
}

/** A layer that answers 413 from `firstRejected` bytes of body on (the smaller sizes passed it). */
export interface BodyLimitLayer {
  layer: string;
  server: string | null;
  nginxPage: boolean;
  firstRejected: number;
}

/** What live requests to `--url` showed. */
export interface ProbeEvidence {
  url: string;
  get: ProbeAnswer | null;
  head: ProbeAnswer | null;
  bodyLimits: { layers: BodyLimitLayer[]; maxTried: number; requests: number } | null;
  failures: string[];
}

/** One nginx process and its open files against its limit. */
export interface NginxProcessFacts {
  pid: number;
  role: 'master' | 'worker' | 'other';
  openFiles: number;
  maxOpenFiles: number | null;
}

/** A file that was deleted but is still held open. */
export interface DeletedOpenFile {
  pid: number;
  command: string;
  fd: number;
  path: string;
  sizeBytes: number;
}

/** What the machine shows. */
export interface SystemEvidence {
  /** TIME_WAIT sockets per endpoint (`127.0.0.1:9101`), counting both ends. */
  timeWaitByEndpoint: Record<string, number>;
  nginxProcesses: NginxProcessFacts[];
  deletedOpenFiles: DeletedOpenFile[];
  logDirs: string[];
}

/** Everything gathered for one diagnosis; every source is optional. */
export interface Evidence {
  symptom: Symptom;
  /**
   * `splitKnown`: the format logs $upstream_header_time, so proxy-generated responses can be told
   * apart; `connectKnown`: it logs $upstream_connect_time, so failed connections can be told apart.
   */
  access: { source: string; records: AccessRecord[]; splitKnown: boolean; connectKnown: boolean } | null;
  errors: { source: string; lines: ClassifiedErrorLine[] } | null;
  config: ConfigEvidence | null;
  probe: ProbeEvidence | null;
  system: SystemEvidence | null;
}
