import { ApiError } from '../errors.js';
import type { BatchSender, ItemOutcome } from './types.js';

/**
 * A sender for endpoints without a batch form: one request per row (use chunkSize 1). A 4xx
 * answer about the row itself (400, 404, 409, 422) is that row's `failed` outcome; auth (401,
 * 403) and transient failures stop the run.
 */
export function perRowSender<P>(call: (payload: P, signal: AbortSignal) => Promise<ItemOutcome>): BatchSender<P> {
  return async (items, signal) => {
    const outcomes: ItemOutcome[] = [];
    for (const item of items) {
      try {
        outcomes.push(await call(item.payload, signal));
      } catch (err) {
        if (!isRowRejection(err)) throw err;
        // A 404 (no such contact yet) may heal by the next run; 400, 409, 422 refuse what the row holds.
        outcomes.push({ status: 'failed', error: err.code, message: err.message, refusal: err.status !== 404 });
      }
    }
    return outcomes;
  };
}

function isRowRejection(err: unknown): err is ApiError {
  return err instanceof ApiError && [400, 404, 409, 422].includes(err.status);
}
