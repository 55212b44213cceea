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
  for (const [name, value] of Object.entries(answer.headers))
    if (name !== 'retry-after' || !res.hasHeader(name)) res.setHeader(name, value);
  res.status(answer.status);
  if (answer.body === '') return void res.end();
  res.send(answer.body);
}
