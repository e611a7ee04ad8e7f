import { FLUSH_CHUNK } from '../batch/run-batch.js';

/**
 * The rows of one stream on their way from the message reader to the batch engine (runBatch
 * reads it as its `rows`): bounded, so a reader that runs ahead of the sends waits (the tap's
 * pipe then fills and the tap waits too); `flush` puts the engine's FLUSH_CHUNK in line (the
 * open chunk goes out at a STATE); `close` ends it. Closed, it takes nothing more.
 */
export class RowQueue<T> implements AsyncIterable<T | typeof FLUSH_CHUNK> {
  private readonly items: Array<T | typeof FLUSH_CHUNK> = [];
  private closed = false;
  /** The engine waiting for an item. */
  private taker: (() => void) | undefined;
  /** Readers waiting for room. */
  private readonly putters: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  /** Queues an item; resolves once there is room for it (at once, mostly). */
  async put(item: T): Promise<void> {
    while (this.items.length >= this.limit && !this.closed) await new Promise<void>((r) => this.putters.push(r));
    if (this.closed) return;
    this.items.push(item);
    this.wake();
  }

  /** The open chunk goes out when the engine reaches this point. */
  flush(): void {
    if (this.closed || this.items[this.items.length - 1] === FLUSH_CHUNK) return;
    this.items.push(FLUSH_CHUNK);
    this.wake();
  }

  /** No more items: the engine ends once it has taken those queued. Waiting putters are let go (their items dropped). */
  close(): void {
    this.closed = true;
    this.wake();
    for (const putter of this.putters.splice(0)) putter();
  }

  private wake(): void {
    const taker = this.taker;
    this.taker = undefined;
    taker?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T | typeof FLUSH_CHUNK> {
    for (;;) {
      while (this.items.length === 0) {
        if (this.closed) return;
        await new Promise<void>((r) => (this.taker = r));
      }
      const item = this.items.shift()!;
      this.putters.shift()?.();
      yield item;
    }
  }
}
