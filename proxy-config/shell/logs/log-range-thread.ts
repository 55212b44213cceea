// The module a worker thread of `logs stats` runs: it counts pieces of the job it was handed and posts
// back what it counted, or the error that stopped it. A file of its own, so that a run without
// threads never loads worker_threads.
import { parentPort, workerData } from 'node:worker_threads';
import { countPieces, type LogRangeJob, type RangeThreadAnswer } from './log-range-worker.js';

const job = (workerData as { proxyopsLogRange?: LogRangeJob } | null)?.proxyopsLogRange;
const post = (answer: RangeThreadAnswer) => parentPort!.postMessage(answer);
if (parentPort && job)
  countPieces(job).then(
    (result) => post({ result }),
    (error: Error & { code?: unknown }) =>
      post({
        failure: {
          code: typeof error.code === 'string' ? error.code : 'LOG_UNREADABLE',
          message: error.message,
        },
      }),
  );
