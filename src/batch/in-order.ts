import type { RowResult } from './types.js';

/**
 * Hands results to `sink` in input order (by sequence number), one at a time, whatever order
 * they arrive in. `buffered` counts results waiting, so the producer can slow down. A sink that
 * returns nothing is called synchronously; one that returns a promise is awaited before the next.
 */
export class InOrder {
  private readonly waiting = new Map<number, RowResult>();
  private next = 0;
  private readonly ready: RowResult[] = [];
  private readyAt = 0;
  private pumping: Promise<void> | undefined;
  private failure: unknown;

  constructor(private readonly sink: (result: RowResult) => void | Promise<void>) {}

  /** Results held back or not yet written. */
  get buffered(): number {
    return this.waiting.size + this.ready.length - this.readyAt;
  }

  /** Whether the sink is writing (drain() then waits for it). */
  get busy(): boolean {
    return this.pumping !== undefined;
  }

  /** The first error the sink threw, if any. */
  get error(): unknown {
    return this.failure;
  }

  put(seq: number, result: RowResult): void {
    if (seq === this.next && this.waiting.size === 0) {
      this.next++;
      this.ready.push(result);
    } else {
      this.waiting.set(seq, result);
      for (let r = this.waiting.get(this.next); r !== undefined; r = this.waiting.get(this.next)) {
        this.waiting.delete(this.next++);
        this.ready.push(r);
      }
    }
    if (!this.pumping) this.pump();
  }

  /** Resolves when everything released so far has been written. */
  async drain(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  /** Writes what is ready: synchronously while the sink stays synchronous. */
  private pump(): void {
    while (this.readyAt < this.ready.length) {
      const result = this.ready[this.readyAt++];
      if (this.failure !== undefined) continue;
      let pending: void | Promise<void>;
      try {
        pending = this.sink(result);
      } catch (err) {
        this.failure = err;
        continue;
      }
      if (pending) {
        this.pumping = pending.then(
          () => this.resume(),
          (err: unknown) => {
            this.failure = err;
            this.resume();
          },
        );
        return;
      }
    }
    this.ready.length = 0;
    this.readyAt = 0;
  }

  private resume(): void {
    this.pumping = undefined;
    this.pump();
    // More may have been released while the sink was busy; the next put() or pump() handles it.
  }
}
