import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import { InOrder } from './in-order.js';
import { resultOf, type BatchItem, type BatchSender, type ItemOutcome, type PreparedRow, type RowResult } from './types.js';

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
  /** With dryRun: shown each chunk that would be sent, in input order. */
  preview?: (items: BatchItem<P>[]) => void;
  /**
   * Where results become durable (the report file): with it, at most `maxUnrecorded` sent rows
   * are ever without a recorded result, so a crash re-sends at most that many.
   */
  record?: ResultRecord;
  /** Most sent rows without a recorded result (default: concurrency x chunkSize). */
  maxUnrecorded?: number;
}

/** How far the results handed to onResult are recorded. */
export interface ResultRecord {
  /** Results recorded so far, counted from the first in input order. */
  recorded(): number;
  /** Resolves once more than `count` results are recorded, or recording failed. */
  waitBeyond(count: number): Promise<void>;
  /** Why recording failed, if it did. */
  error(): unknown;
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
  // The send slots: first come, first served, so chunks go in the order their dependencies allow.
  const slot = pLimit(Math.max(1, opts.concurrency));
  const running = new Set<Promise<void>>();
  const holders = new Map<string, ChunkState>();
  const maxPending = Math.max(2, opts.concurrency * 2);
  const maxBuffered = Math.max(10_000, opts.chunkSize * maxPending * 2);
  const unrecorded = new Unrecorded(opts.record, opts.maxUnrecorded ?? Math.max(1, opts.concurrency) * opts.chunkSize);
  let stoppedBy: unknown;
  let stopped = false;
  // The sink (the report) failed: nothing more can be recorded, so nothing more is read.
  let sinkError: unknown;
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

  // After a stop every remaining row is skipped for the same reason: one message for them all.
  let notSent: { error: string; message: string } | undefined;
  const skip = (item: BatchItem<P>, s: number, failed?: unknown) => {
    if (failed !== undefined) return results.put(s, resultOf(item, { status: 'skipped', error: codeOf(failed), message: `no confirmed answer: ${messageOf(failed)}` }));
    notSent ??= { error: 'not_sent', message: `not sent: the run stopped (${messageOf(stoppedBy)})` };
    results.put(s, resultOf(item, { status: 'skipped', error: notSent.error, message: notSent.message }));
  };
  const waitForOne = () => (running.size > 0 ? Promise.race(running) : Promise.resolve());
  const sinkFailed = (err: unknown) => {
    sinkError ??= err;
    stop(err);
  };

  const dispatch = async (chunk: Array<{ seq: number; item: BatchItem<P> }>) => {
    // Once stopped, a chunk is skipped at once: its rows must not hold back the results after them.
    if (!stopped) while (running.size >= maxPending) await waitForOne();
    if (!stopped) await unrecorded.room(chunk.length, () => (running.size > 0 ? Promise.race(running) : undefined)).catch(sinkFailed);
    if (stopped) return chunk.forEach(({ item, seq: s }) => skip(item, s));
    unrecorded.sent(chunk[chunk.length - 1].seq, chunk.length);
    const keys = opts.orderKey ? [...new Set(chunk.flatMap(({ item }) => keysOf(opts.orderKey, item.payload)))] : [];
    const deps = keys.length ? [...new Set(keys.map((k) => holders.get(k)).filter((d): d is ChunkState => d !== undefined))] : [];
    const state: ChunkState = { done: Promise.resolve() };
    for (const key of keys) holders.set(key, state);
    const task = (async () => {
      await Promise.all(deps.map((d) => d.done));
      await slot(async () => {
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
          chunk.forEach(({ item, seq: s }, i) => results.put(s, resultOf(item, outcomes[i])));
        } finally {
          for (const key of keys) if (holders.get(key) === state) holders.delete(key);
        }
      });
    })();
    state.done = task;
    running.add(task);
    void task.finally(() => running.delete(task));
  };

  let chunk: Array<{ seq: number; item: BatchItem<P> }> = [];
  let dryChunk: BatchItem<P>[] = [];
  const showDry = () => {
    if (dryChunk.length > 0) opts.preview?.(dryChunk);
    dryChunk = [];
  };
  const dispatchOpen = async () => {
    const open = chunk;
    chunk = [];
    if (open.length > 0) await dispatch(open);
  };
  try {
    for await (const item of opts.rows) {
      for (const row of Array.isArray(item) ? (item as ReadonlyArray<PreparedRow<P>>) : [item as PreparedRow<P>]) {
        if (results.error !== undefined) sinkFailed(results.error);
        if (sinkError !== undefined) break;
        const s = seq++;
        if (row.outcome) {
          results.put(s, resultOf(row, row.outcome));
        } else if (opts.dryRun) {
          dryChunk.push(row);
          if (dryChunk.length >= opts.chunkSize) showDry();
          results.put(s, resultOf(row, VALID));
        } else if (stopped) {
          if (chunk.length > 0) await dispatchOpen();
          skip(row, s);
        } else {
          chunk.push({ seq: s, item: row });
          if (chunk.length >= opts.chunkSize) await dispatchOpen();
        }
      }
      if (results.error !== undefined) sinkFailed(results.error);
      if (sinkError !== undefined) break;
      // Let the report catch up. The open chunk holds back every result after it: send it (or
      // skip it, once stopped) rather than wait for rows that will not come.
      while (results.buffered > maxBuffered && results.error === undefined) {
        if (chunk.length > 0) await dispatchOpen();
        // (drain() resolves at once when the sink is idle: racing it would spin without yielding.)
        else if (running.size > 0) await (results.busy ? Promise.race([waitForOne(), results.drain()]) : waitForOne());
        else if (results.busy) await results.drain();
        // Nothing can make progress: yield to the event loop rather than spin on microtasks.
        else await new Promise((resolve) => setImmediate(resolve));
      }
    }
  } catch (err) {
    // The input broke mid-way: what was read still gets its results, the rest cannot.
    stop(err);
  }
  if (chunk.length > 0) await dispatchOpen();
  showDry();
  while (running.size > 0) await waitForOne();
  opts.signal?.removeEventListener('abort', onAbort);
  await results.drain();
  // The sink (the report) failing is not a row's problem: it ends the command.
  if (results.error !== undefined) throw results.error;
  if (sinkError !== undefined) throw sinkError;
  return { stoppedBy };
}

const VALID: ItemOutcome = { status: 'valid' };

/**
 * Sent rows whose results are not recorded yet, chunk by chunk in input order: a new chunk
 * waits while sending it would put more than `limit` rows at risk of a re-send after a crash.
 */
class Unrecorded {
  private readonly chunks: Array<{ last: number; size: number }> = [];
  private rows = 0;

  constructor(private readonly record: ResultRecord | undefined, private readonly limit: number) {}

  sent(lastSeq: number, size: number): void {
    if (this.record) {
      this.chunks.push({ last: lastSeq, size });
      this.rows += size;
    }
  }

  /**
   * Waits until `size` more rows fit (at once when nothing is at risk). `settled` is a send
   * finishing, or undefined when none runs; throws when recording failed.
   */
  async room(size: number, settled: () => Promise<void> | undefined): Promise<void> {
    const record = this.record;
    if (!record) return;
    for (this.prune(); this.rows > 0 && this.rows + size > this.limit; this.prune()) {
      if (record.error() !== undefined) throw record.error();
      const next = record.waitBeyond(record.recorded());
      await Promise.race([settled() ?? next, next]);
    }
    if (record.error() !== undefined) throw record.error();
  }

  private prune(): void {
    const recorded = this.record!.recorded();
    while (this.chunks.length > 0 && this.chunks[0].last < recorded) this.rows -= this.chunks.shift()!.size;
  }
}

function keysOf<P>(orderKey: RunBatchOptions<P>['orderKey'], payload: P): readonly string[] {
  const key = orderKey?.(payload);
  if (key === undefined) return [];
  return typeof key === 'string' ? [key] : key;
}

function codeOf(err: unknown): string {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'error';
}

function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message : String(err ?? 'stopped');
}
