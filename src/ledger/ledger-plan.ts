import { stdoutError } from '../errors.js';
import { resolveFormat, type Output } from '../output/format.js';
import { createListWriter } from '../output/list-writer.js';
import { tableText, writePaged } from '../output/pager.js';
import type { Removal } from './removals.js';
import { shownKey, type SendKind } from './tracked-rows.js';

/** What cnv sends at most per second: the API's 200, less its margin (src/http's limiter). */
const RATE = 195;

/** A line of `audience sync --plan` (NDJSON): a row to add or update, a removal (held or not), then the summary. */
type PlanLine =
  | { type: 'add' | 'update'; line: number; key: string; contact: string }
  | { type: 'remove'; key: string; cnvContactId: string; held: boolean };

/** The counts a plan ends with. */
export interface PlanCounts {
  add: number;
  update: number;
  remove: number;
  held: number;
  unchanged: number;
  invalid: number;
  /** Requests a run would send: the rows to send in chunks of the batch size, one per removal. */
  requests: number;
  /** Their time at cnv's rate (195 requests/s under the API's 200). */
  seconds: number;
}

/** The requests of a run and their time at the rate limit. */
export function planCost(toSend: number, chunkSize: number, removals: number): { requests: number; seconds: number } {
  const requests = Math.ceil(toSend / chunkSize) + removals;
  return { requests, seconds: Math.round((requests / RATE) * 10) / 10 };
}

/**
 * `audience sync --plan` (and `campaigns sync --plan`): each member to add and each to remove,
 * then the counts and the time the requests take at the rate limit. On a terminal a table and a
 * last line; piped or with --json, NDJSON (one line each, then a `summary` line).
 */
export class LedgerPlan {
  private readonly lines: PlanLine[] = [];
  private chain: Promise<void> = Promise.resolve();
  private failed: unknown;

  private constructor(
    private readonly output: Output,
    private readonly writer: Awaited<ReturnType<typeof createListWriter>> | undefined,
  ) {}

  static async open(output: Output): Promise<LedgerPlan> {
    const table = resolveFormat(output) === 'table';
    return new LedgerPlan(output, table ? undefined : await createListWriter({ ...output, format: 'ndjson' }));
  }

  /** A row that would be sent. */
  send(line: number, key: string, contact: string, kind: SendKind): void {
    this.put({ type: kind === 'new' ? 'add' : 'update', line, key, contact });
  }

  /** A removal that would be made (or, `held`, that --max-removals holds). */
  remove(removal: Removal, held: boolean): void {
    this.put({ type: 'remove', key: removal.keys[0], cnvContactId: removal.cnvContactId, held });
  }

  private put(line: PlanLine): void {
    if (!this.writer) {
      this.lines.push(line);
      return;
    }
    this.chain = this.chain.then(() =>
      this.failed === undefined
        ? this.writer!.write(line as unknown as Record<string, unknown>).catch((err: unknown) => {
            this.failed = err;
          })
        : undefined,
    );
  }

  /** The counts, after every line: the `summary` line, or a line under the table. */
  async end(counts: PlanCounts): Promise<void> {
    await this.chain;
    if (this.failed !== undefined) throw stdoutError(this.failed);
    if (this.writer) {
      await this.writer.write({ type: 'summary', ...counts });
      return this.writer.end();
    }
    const rows = this.lines.map((l) =>
      l.type === 'remove'
        ? { line: '', action: l.held ? 'remove (held)' : 'remove', contact: shownKey(l.key), id: l.cnvContactId }
        : { line: l.line, action: l.type, contact: l.contact, id: '' },
    );
    const text = rows.length === 0 ? '' : await tableText(this.output, ['line', 'action', 'contact', 'id'], rows);
    await writePaged(this.output, `${text}${planLine(counts)}\n`);
  }
}

/** `Plan: 30 to add, 0 to update, 30 to remove, 2970 unchanged, 0 invalid; 31 requests, about 0.2 s at 195 requests/s.` */
export function planLine(c: PlanCounts): string {
  const held = c.held > 0 ? ` (${c.held} more held by --max-removals)` : '';
  const requests = `${c.requests} ${c.requests === 1 ? 'request' : 'requests'}`;
  const seconds = c.seconds < 0.1 ? 'under 0.1' : `about ${c.seconds}`;
  return (
    `Plan: ${c.add} to add, ${c.update} to update, ${c.remove} to remove${held}, ` +
    `${c.unchanged} unchanged, ${c.invalid} invalid; ${requests}, ${seconds} s at ${RATE} requests/s.`
  );
}
