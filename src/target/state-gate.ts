import type { Writable } from 'node:stream';
import { writeWithBackpressure } from '../output/write.js';

/** How far a stream's rows are: given to the engine, and with a durable outcome (in order). */
interface LaneProgress {
  registered: number;
  durable: number;
  /** Writes what its outcomes left to keep (failed rows, passes) to the ledger, on disk. */
  persist(): Promise<void>;
}

interface HeldState {
  /** The state's JSON text as the tap wrote it. */
  value: string;
  /** Per stream, the rows read before the state: all must have a durable outcome before it is printed. */
  marks: Array<[LaneProgress, number]>;
}

/**
 * The tap's STATEs on their way to stdout (docs/target.md, "State"): each held until every
 * record read before it has a durable outcome (in the ledger, on disk), then printed as the tap
 * wrote its value, one line, in order. Meltano saves each line the target prints as the pipeline's
 * state at once, so a line printed early would let a rerun skip records that were never sent.
 * Only the tap's own states are printed (none before its first, no empty one), and nothing else.
 */
export class StateGate {
  private readonly held: HeldState[] = [];
  private printing: Promise<void> | undefined;
  private again = false;
  private failure: unknown;
  /** States printed. */
  printed = 0;
  /** The last state printed. */
  last: string | undefined;

  constructor(
    private readonly stdout: Writable,
    private readonly lanes: () => Iterable<LaneProgress>,
  ) {}

  /** A STATE read: held until what was read before it is durable. */
  add(value: string): void {
    this.held.push({ value, marks: [...this.lanes()].map((lane) => [lane, lane.registered]) });
    this.check();
  }

  /** States not printed (read, but something before them has no durable outcome). */
  get waiting(): number {
    return this.held.length;
  }

  /** Prints the states whose records are durable now (called after each outcome). */
  check(): void {
    if (this.printing) {
      this.again = true;
      return;
    }
    if (!this.ready()) return;
    this.printing = this.print().finally(() => {
      this.printing = undefined;
      if (this.again) {
        this.again = false;
        this.check();
      }
    });
    this.printing.catch((err: unknown) => (this.failure ??= err));
  }

  /** Waits for the printing under way; throws what failed it (stdout closed). */
  async drain(): Promise<void> {
    while (this.printing) await this.printing.catch(() => {});
    if (this.failure !== undefined) throw this.failure;
  }

  private ready(): boolean {
    const first = this.held[0];
    return first !== undefined && first.marks.every(([lane, mark]) => lane.durable >= mark);
  }

  private async print(): Promise<void> {
    while (this.ready()) {
      let ready = 0;
      while (ready < this.held.length && this.held[ready].marks.every(([lane, mark]) => lane.durable >= mark)) ready++;
      const states = this.held.splice(0, ready);
      // What the outcomes left to keep goes to disk before the states that cover them.
      await Promise.all([...this.lanes()].map((lane) => lane.persist()));
      for (const state of states) {
        await writeWithBackpressure(this.stdout, `${state.value}\n`);
        this.printed++;
        this.last = state.value;
      }
    }
  }
}
