/** How far the results handed to onResult are recorded. */
export interface ResultRecord {
  /** Results recorded so far, counted from the first in input order. */
  recorded(): number;
  /** Resolves once more than `count` results are recorded, or recording failed. */
  waitBeyond(count: number): Promise<void>;
  /** Why recording failed, if it did. */
  error(): unknown;
}

/**
 * Sent rows whose results are not recorded yet, chunk by chunk in input order: a new chunk
 * waits while sending it would put more than `limit` rows at risk of a re-send after a crash.
 */
export class Unrecorded {
  private readonly chunks: Array<{ last: number; size: number }> = [];
  private rows = 0;

  constructor(
    private readonly record: ResultRecord | undefined,
    private readonly limit: number,
  ) {}

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
