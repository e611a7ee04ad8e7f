import { setMaxListeners } from 'node:events';
import { InOrder } from './in-order.js';
import type { BatchItem, BatchSender, ItemOutcome, PreparedRow, RowResult } from './types.js';

export interface RunBatchOptions<P> {
  /**
   * Rows in input order, validated (see PreparedRow), one at a time or in arrays (cheaper for
   * large files). Read lazily, never all at once.
   */
  rows: AsyncIterable<PreparedRow<P> | ReadonlyArray<PreparedRow<P>>>;
  send: BatchSender<P>;
  /** Most items per send (the endpoint's limit; 1 for one request per row). */
  chunkSize: number;
  /** Most sends in flight at once. */
  concurrency: number;
  /**
   * Optional ordering: a chunk holding a key that an earlier, unfinished chunk also holds waits
   * for that chunk to finish before it is sent, so writes to one key apply in input order.
   * Chunks sharing no key still go concurrently.
   */
  orderKey?: (payload: P) => string | readonly string[] | undefined;
  /** Every row's result, exactly once, in input order. */
  onResult: (result: RowResult) => void | Promise<void>;
  /** When it aborts: no new sends; sends in flight finish (aborted after graceMs); the rest is `skipped`. */
  signal?: AbortSignal;
  /** How long sends in flight may run after an abort before they are aborted too (default 10 s). */
  graceMs?: number;
  /** Validate only: every sendable row gets `valid`, nothing is sent. */
  dryRun?: boolean;
}

export interface RunBatchOutcome {
  /** Why the run stopped early (a sender's error, an input error, the abort reason); undefined when it ran to the end. */
  stoppedBy?: unknown;
}

interface ChunkState {
  done: Promise<void>;
}

/**
 * The batch engine: chunks valid rows, sends them with bounded concurrency (and the optional
 * per-key ordering), and gives every row exactly one result, in input order. A sender that
 * throws stops the run: nothing more is sent, sends in flight finish, every row not confirmed
 * is `skipped`, and the remaining input is still read so that it gets its results.
 */
export async function runBatch<P>(opts: RunBatchOptions<P>): Promise<RunBatchOutcome> {
  const results = new InOrder(opts.onResult);
  const inflight = new AbortController();
  // Every send in flight waits on this signal (rate limiter, retry backoff): up to `concurrency` listeners at once, not a leak.
  setMaxListeners(Math.max(1, opts.concurrency) + 10, inflight.signal);
  const slots = new Slots(Math.max(1, opts.concurrency));
  const running = new Set<Promise<void>>();
  const holders = new Map<string, ChunkState>();
  const maxPending = Math.max(2, opts.concurrency * 2);
  const maxBuffered = Math.max(10_000, opts.chunkSize * maxPending * 2);
  let stoppedBy: unknown;
  let stopped = false;
  let seq = 0;

  const stop = (reason: unknown) => {
    if (stopped) return;
    stopped = true;
    stoppedBy = reason;
  };
  const onAbort = () => {
    stop(opts.signal?.reason);
    setTimeout(() => inflight.abort(opts.signal?.reason), opts.graceMs ?? 10_000).unref();
  };
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });

  const skip = (item: BatchItem<P>, s: number, failed?: unknown) => results.put(s, skippedResult(item, failed, stoppedBy));
  const waitForOne = () => (running.size > 0 ? Promise.race(running) : Promise.resolve());

  const dispatch = async (chunk: Array<{ seq: number; item: BatchItem<P> }>) => {
    while (running.size >= maxPending) await waitForOne();
    if (stopped) return chunk.forEach(({ item, seq: s }) => skip(item, s));
    const keys = opts.orderKey ? [...new Set(chunk.flatMap(({ item }) => keysOf(opts.orderKey, item.payload)))] : [];
    const deps = keys.length ? [...new Set(keys.map((k) => holders.get(k)).filter((d): d is ChunkState => d !== undefined))] : [];
    const state: ChunkState = { done: Promise.resolve() };
    for (const key of keys) holders.set(key, state);
    const task = (async () => {
      await Promise.all(deps.map((d) => d.done));
      await slots.acquire();
      try {
        if (stopped) return chunk.forEach(({ item, seq: s }) => skip(item, s));
        const items = chunk.map((c) => c.item);
        let outcomes: ItemOutcome[];
        try {
          outcomes = await opts.send(items, inflight.signal);
          if (outcomes.length !== items.length) throw new Error(`the sender gave ${outcomes.length} results for ${items.length} items`);
        } catch (err) {
          stop(err);
          return chunk.forEach(({ item, seq: s }) => skip(item, s, err));
        }
        chunk.forEach(({ item, seq: s }, i) => results.put(s, { line: item.line, identifier: item.identifier, ...outcomes[i] }));
      } finally {
        slots.release();
        for (const key of keys) if (holders.get(key) === state) holders.delete(key);
      }
    })();
    state.done = task;
    running.add(task);
    void task.finally(() => running.delete(task));
  };

  let chunk: Array<{ seq: number; item: BatchItem<P> }> = [];
  try {
    for await (const item of opts.rows) {
      for (const row of Array.isArray(item) ? (item as ReadonlyArray<PreparedRow<P>>) : [item as PreparedRow<P>]) {
        const s = seq++;
        if (row.outcome) {
          results.put(s, { line: row.line, identifier: row.identifier, ...row.outcome });
        } else if (opts.dryRun) {
          results.put(s, { line: row.line, identifier: row.identifier, status: 'valid' });
        } else if (stopped) {
          skip(row, s);
        } else {
          chunk.push({ seq: s, item: row });
          if (chunk.length >= opts.chunkSize) {
            const full = chunk;
            chunk = [];
            await dispatch(full);
          }
        }
        if (results.error !== undefined) stop(results.error);
        // Let the report catch up; with nothing in flight only the writes can make progress.
        while (results.buffered > maxBuffered) await (running.size > 0 ? Promise.race([waitForOne(), results.drain()]) : results.drain());
      }
    }
  } catch (err) {
    // The input broke mid-way: what was read still gets its results, the rest cannot.
    stop(err);
  }
  if (chunk.length > 0) await dispatch(chunk);
  while (running.size > 0) await waitForOne();
  opts.signal?.removeEventListener('abort', onAbort);
  await results.drain();
  // The sink (the report) failing is not a row's problem: it ends the command.
  if (results.error !== undefined) throw results.error;
  return { stoppedBy };
}

function keysOf<P>(orderKey: RunBatchOptions<P>['orderKey'], payload: P): readonly string[] {
  const key = orderKey?.(payload);
  if (key === undefined) return [];
  return typeof key === 'string' ? [key] : key;
}

/** `failed`: the error of this row's own chunk (sent, no confirmed answer); else the row was never sent. */
function skippedResult(item: { line: number; identifier: string }, failed: unknown, stoppedBy: unknown): RowResult {
  const base = { line: item.line, identifier: item.identifier, status: 'skipped' as const };
  if (failed !== undefined) return { ...base, error: codeOf(failed), message: `no confirmed answer: ${messageOf(failed)}` };
  return { ...base, error: 'not_sent', message: `not sent: the run stopped (${messageOf(stoppedBy)})` };
}

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'error';
}

function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message : String(err ?? 'stopped');
}

/** A counting semaphore with first-come, first-served waiters. */
class Slots {
  private free: number;
  private readonly waiters: Array<() => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}
