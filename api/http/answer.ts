import type { Response } from 'express';

/** A whole HTTP response as data: what the routes render, and what an idempotency key replays. */
export interface HttpAnswer {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** Empty for 204. */
  body: string;
}

/** Writes `answer`; a Retry-After the response already carries (the rate limiter's) is kept. */
export function sendAnswer(res: Response, answer: HttpAnswer): void {
  for (const name in answer.headers)
    if (name !== 'retry-after' || !res.hasHeader(name)) res.setHeader(name, answer.headers[name] as string);
  // The status is one of ours, always valid: Express's res.status() would check it again.
  res.statusCode = answer.status;
  if (answer.body === '') return void res.end();
  res.send(answer.body);
}
