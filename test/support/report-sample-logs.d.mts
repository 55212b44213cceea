/** Exact counts of a generated log. */
export interface SampleCounts {
  records: number;
  s5xx: number;
  proxy5xx: number;
  s499: number;
}
export interface SampleOptions {
  upstreams?: number;
  minutes?: number;
  perMinute?: number;
  startMs?: number;
  seed?: number;
}
export function timeLocal(ms: number): string;
export function sampleUpstreams(count: number): string[];
export function incidentLog(options?: SampleOptions): { text: string; counts: SampleCounts };
export function combinedLog(options?: SampleOptions): { text: string; counts: SampleCounts };
