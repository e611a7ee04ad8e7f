import type { RowResult } from './types.js';

/**
 * Hands results to `sink` in input order (by sequence number), one at a time, whatever order
 * they arrive in. `buffered` counts results waiting, so the producer can slow down.
 */
export class InOrder {
  private readonly waiting = new Map<number, RowResult>();
  private next = 0;
  private tail: Promise<void> = Promise.resolve();
  private failure: unknown;
  private queued = 0;

  constructor(private readonly sink: (result: RowResult) => void | Promise<void>) {}

  /** Results held back or not yet written. */
  get buffered(): number {
    return this.waiting.size + this.queued;
  }

  /** The first error the sink threw, if any. */
  get error(): unknown {
    return this.failure;
  }

  put(seq: number, result: RowResult): void {
    this.waiting.set(seq, result);
    while (this.waiting.has(this.next)) {
      const ready = this.waiting.get(this.next)!;
      this.waiting.delete(this.next++);
      this.queued++;
      this.tail = this.tail.then(async () => {
        try {
          if (this.failure === undefined) await this.sink(ready);
        } catch (err) {
          this.failure = err;
        } finally {
          this.queued--;
        }
      });
    }
  }

  /** Resolves when everything released so far has been written. */
  drain(): Promise<void> {
    return this.tail;
  }
}
