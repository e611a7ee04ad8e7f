import { setMaxListeners } from 'node:events';
import pLimit from 'p-limit';
import { InOrder } from './in-order.js';
import { Unrecorded, type ResultRecord } from './unrecorded.js';
import {
  resultOf,
  type BatchItem,
  type BatchSender,
  type ItemOutcome,
  type PreparedRow,
  type RowResult,
} from './types.js';

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

/**
 * Read from `rows` (by identity), it sends the open chunk now, though not full: a Singer target
 * (src/target) at a STATE, whose rows before it must get their results before it is printed.
 */
export const FLUSH_CHUNK: ReadonlyArray<never> = Object.freeze([]);

interface RunBatchOutcome {
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
  const run = new BatchRun(opts);
  const onAbort = () => run.abort();
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await run.readAll();
  } catch (err) {
    // The input broke mid-way: what was read still gets its results, the rest cannot.
    run.stop(err);
  }
  await run.settle();
  opts.signal?.removeEventListener('abort', onAbort);
  return run.finish();
}

type Numbered<P> = { seq: number; item: BatchItem<P> };

/** One run of the engine: what is read, open, in flight and released, and why it stopped. */
class BatchRun<P> {
  private readonly results: InOrder;
  private readonly inflight = new AbortController();
  /** The send slots: first come, first served, so chunks go in the order their dependencies allow. */
  private readonly slot: ReturnType<typeof pLimit>;
  private readonly running = new Set<Promise<void>>();
  /** The unfinished chunk holding each order key. */
  private readonly holders = new Map<string, ChunkState>();
  private readonly maxPending: number;
  private readonly maxBuffered: number;
  private readonly unrecorded: Unrecorded;
  private stoppedBy: unknown;
  private stopped = false;
  /** The sink (the report) failed: nothing more can be recorded, so nothing more is read. */
  private sinkError: unknown;
  private seq = 0;
  /** The chunk being filled. */
  private chunk: Array<Numbered<P>> = [];
  /** With dryRun: the chunk that would be sent, for the preview. */
  private dryChunk: BatchItem<P>[] = [];
  /** After a stop every remaining row is skipped for the same reason: one message for them all. */
  private notSent: { error: string; message: string } | undefined;

  constructor(private readonly opts: RunBatchOptions<P>) {
    this.results = new InOrder(opts.onResult);
    // Every send in flight waits on this signal (rate limiter, retry backoff): up to `concurrency` listeners at once, not a leak.
    setMaxListeners(Math.max(1, opts.concurrency) + 10, this.inflight.signal);
    this.slot = pLimit(Math.max(1, opts.concurrency));
    this.maxPending = Math.max(2, opts.concurrency * 2);
    this.maxBuffered = Math.max(10_000, opts.chunkSize * this.maxPending * 2);
    this.unrecorded = new Unrecorded(opts.record, opts.maxUnrecorded ?? Math.max(1, opts.concurrency) * opts.chunkSize);
  }

  stop(reason: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stoppedBy = reason;
  }

  /** The caller's signal: stop now; sends in flight get `graceMs` before they are aborted too. */
  abort(): void {
    const reason = this.opts.signal?.reason;
    this.stop(reason);
    setTimeout(() => this.inflight.abort(reason), this.opts.graceMs ?? 10_000).unref();
  }

  /** Reads every row (until the sink fails), giving each its result or its place in a chunk. */
  async readAll(): Promise<void> {
    for await (const item of this.opts.rows) {
      if (item === FLUSH_CHUNK) {
        await this.dispatchOpen();
        continue;
      }
      for (const row of Array.isArray(item) ? (item as ReadonlyArray<PreparedRow<P>>) : [item as PreparedRow<P>]) {
        if (this.sinkBroke()) break;
        const sending = this.take(row, this.seq++);
        if (sending) await sending;
      }
      if (this.sinkBroke()) break;
      await this.catchUp();
    }
  }

  /** Sends what is open, waits for every send, shows the last dry-run chunk. */
  async settle(): Promise<void> {
    await this.dispatchOpen();
    this.showDry();
    while (this.running.size > 0) await this.waitForOne();
  }

  async finish(): Promise<RunBatchOutcome> {
    await this.results.drain();
    // The sink (the report) failing is not a row's problem: it ends the command.
    if (this.results.error !== undefined) throw this.results.error;
    if (this.sinkError !== undefined) throw this.sinkError;
    return { stoppedBy: this.stoppedBy };
  }

  private sinkBroke(): boolean {
    if (this.results.error !== undefined) this.sinkFailed(this.results.error);
    return this.sinkError !== undefined;
  }

  private sinkFailed(err: unknown): void {
    this.sinkError ??= err;
    this.stop(err);
  }

  /**
   * One row: its own outcome (invalid), valid (dry run), skipped (stopped), or into the open
   * chunk. A promise only when a chunk goes out (most rows cost no await).
   */
  private take(row: PreparedRow<P>, s: number): Promise<void> | undefined {
    if (row.outcome) {
      this.results.put(s, resultOf(row, row.outcome));
    } else if (this.opts.dryRun) {
      this.dryChunk.push(row);
      if (this.dryChunk.length >= this.opts.chunkSize) this.showDry();
      this.results.put(s, resultOf(row, VALID));
    } else if (this.stopped) {
      if (this.chunk.length > 0) return this.dispatchOpen().then(() => this.skip(row, s));
      this.skip(row, s);
    } else {
      this.chunk.push({ seq: s, item: row });
      if (this.chunk.length >= this.opts.chunkSize) return this.dispatchOpen();
    }
    return undefined;
  }

  /**
   * Lets the report catch up. The open chunk holds back every result after it: send it (or skip
   * it, once stopped) rather than wait for rows that will not come.
   */
  private async catchUp(): Promise<void> {
    const results = this.results;
    while (results.buffered > this.maxBuffered && results.error === undefined) {
      if (this.chunk.length > 0) await this.dispatchOpen();
      // (drain() resolves at once when the sink is idle: racing it would spin without yielding.)
      else if (this.running.size > 0)
        await (results.busy ? Promise.race([this.waitForOne(), results.drain()]) : this.waitForOne());
      else if (results.busy) await results.drain();
      // Nothing can make progress: yield to the event loop rather than spin on microtasks.
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private showDry(): void {
    if (this.dryChunk.length > 0) this.opts.preview?.(this.dryChunk);
    this.dryChunk = [];
  }

  private async dispatchOpen(): Promise<void> {
    const open = this.chunk;
    this.chunk = [];
    if (open.length > 0) await this.dispatch(open);
  }

  private waitForOne(): Promise<void> {
    return this.running.size > 0 ? Promise.race(this.running) : Promise.resolve();
  }

  /** Waits for room (sends in flight, unrecorded rows), then starts the chunk's send once the chunks it follows are done. */
  private async dispatch(chunk: Array<Numbered<P>>): Promise<void> {
    // Once stopped, a chunk is skipped at once: its rows must not hold back the results after them.
    if (!this.stopped) while (this.running.size >= this.maxPending) await this.waitForOne();
    if (!this.stopped)
      await this.unrecorded
        .room(chunk.length, () => (this.running.size > 0 ? Promise.race(this.running) : undefined))
        .catch((err: unknown) => this.sinkFailed(err));
    if (this.stopped) return chunk.forEach(({ item, seq: s }) => this.skip(item, s));
    this.unrecorded.sent(chunk[chunk.length - 1].seq, chunk.length);
    const orderKey = this.opts.orderKey;
    const keys = orderKey ? [...new Set(chunk.flatMap(({ item }) => keysOf(orderKey, item.payload)))] : [];
    const deps = keys.length
      ? [...new Set(keys.map((k) => this.holders.get(k)).filter((d): d is ChunkState => d !== undefined))]
      : [];
    const state: ChunkState = { done: Promise.resolve() };
    for (const key of keys) this.holders.set(key, state);
    const task = (async () => {
      await Promise.all(deps.map((d) => d.done));
      await this.slot(async () => {
        try {
          await this.send(chunk);
        } finally {
          for (const key of keys) if (this.holders.get(key) === state) this.holders.delete(key);
        }
      });
    })();
    state.done = task;
    this.running.add(task);
    void task.finally(() => this.running.delete(task));
  }

  /** Sends one chunk and releases its rows' results; a sender's error stops the run. */
  private async send(chunk: Array<Numbered<P>>): Promise<void> {
    if (this.stopped) return chunk.forEach(({ item, seq: s }) => this.skip(item, s));
    const items = chunk.map((c) => c.item);
    let outcomes: ItemOutcome[];
    try {
      outcomes = await this.opts.send(items, this.inflight.signal);
      if (outcomes.length !== items.length)
        throw new Error(`the sender gave ${outcomes.length} results for ${items.length} items`);
    } catch (err) {
      this.stop(err);
      return chunk.forEach(({ item, seq: s }) => this.skip(item, s, err));
    }
    chunk.forEach(({ item, seq: s }, i) => this.results.put(s, resultOf(item, outcomes[i])));
  }

  private skip(item: BatchItem<P>, s: number, failed?: unknown): void {
    if (failed !== undefined)
      return this.results.put(
        s,
        resultOf(item, {
          status: 'skipped',
          error: codeOf(failed),
          message: `no confirmed answer: ${messageOf(failed)}`,
        }),
      );
    this.notSent ??= { error: 'not_sent', message: `not sent: the run stopped (${messageOf(this.stoppedBy)})` };
    this.results.put(
      s,
      resultOf(item, { status: 'skipped', error: this.notSent.error, message: this.notSent.message }),
    );
  }
}

const VALID: ItemOutcome = { status: 'valid' };

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
