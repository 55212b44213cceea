import type { LineFacts } from '../logs/line-facts.js';
import type { AccessRecord } from './access-record.js';

function seconds(ms: number): number | null {
  return ms < 0 ? null : ms / 1000;
}

/** Copies the access-log parser's reusable LineFacts into an AccessRecord diagnosis can keep. */
export function toAccessRecord(facts: LineFacts, path: string | null): AccessRecord {
  const attempts = facts.attempts;
  return {
    time: Number.isNaN(facts.timeMs) ? null : new Date(facts.timeMs),
    status: facts.status,
    path: path ?? '',
    requestTime: seconds(facts.requestTimeMs),
    upstreamStatus: facts.upstreamStatus.slice(0, attempts).map((status) => (status < 0 ? null : status)),
    upstreamConnectTime: Array.from({ length: attempts }, (_, k) => seconds(facts.connectMs[k] ?? -1)),
    upstreamHeaderTime: Array.from({ length: attempts }, (_, k) => seconds(facts.headerMs[k] ?? -1)),
    upstreamAddr: facts.addr.slice(0, attempts),
  };
}
