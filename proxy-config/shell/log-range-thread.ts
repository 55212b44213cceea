// The module a worker thread of `logs stats` runs: it counts ranges of the job it was handed and posts
// back what it counted. A file of its own, so that a run without threads never loads worker_threads.
import { parentPort, workerData } from 'node:worker_threads';
import { scanFileRanges, type LogRangeJob } from './log-range-worker.js';

const job = (workerData as { proxyopsLogRange?: LogRangeJob } | null)?.proxyopsLogRange;
if (parentPort && job) parentPort.postMessage(scanFileRanges(job));
