import { stdoutError } from '../errors.js';
import { resolveFormat, type Output } from '../output/format.js';
import { createListWriter } from '../output/list-writer.js';
import { writeWithBackpressure } from '../output/write.js';
import { isExactNumber, stringifyJson } from '../lib/exact-number.js';
import type { Change, Decision } from './decide.js';
import type { SyncCounts } from './sync-counts.js';

/** One line of `contacts sync --plan` (NDJSON, as Terraform's `plan -json` streams typed messages). */
interface PlanChange {
  type: 'change';
  line: number;
  action: 'create' | 'update';
  /** The row's identifier as the file gives it. */
  contact: string;
  cnvContactId: string | null;
  changes: Change[];
  /** Why the row is sent although it may change nothing. */
  unsure: string | null;
}

/**
 * The plan as it is decided, row by row: on a terminal a table (one line per changed value)
 * and a last line of counts, else NDJSON (`-q` applies to each line): a `change` line per row
 * that would be sent, then one `summary` line. Writes are chained, so rows keep their order.
 * A write that fails (the reader went away: `| head`) ends the writing: the launcher stops the
 * run for it, and `end` throws it as stdout's error (exit 141, or 8 naming stdout).
 */
export class PlanOutput {
  private chain: Promise<void> = Promise.resolve();
  private failed: unknown;

  private constructor(private readonly output: Output, private readonly table: boolean, private readonly writer: Awaited<ReturnType<typeof createListWriter>>) {}

  static async open(output: Output): Promise<PlanOutput> {
    const table = resolveFormat(output) === 'table';
    // Piped, or with --json: NDJSON, so a plan of any size streams (-o json would hold it whole).
    const format = table ? 'table' : 'ndjson';
    const writer = await createListWriter({ ...output, format }, table ? ['line', 'action', 'contact', 'field', 'old', 'new'] : undefined, table ? { table: ['line', 'action', 'contact', 'field', 'old', 'new'] } : {});
    return new PlanOutput(output, table, writer);
  }

  add(line: number, contact: string, decision: Decision): void {
    if (decision.action === 'unchanged') return;
    const entry: PlanChange = {
      type: 'change', line, action: decision.action, contact, cnvContactId: decision.cnvContactId ?? null, changes: decision.changes, unsure: decision.unsure?.detail ?? null,
    };
    for (const row of this.table ? tableRows(entry) : [entry as unknown as Record<string, unknown>]) this.chain = this.chain.then(() => this.write(row));
  }

  /** One row, unless a write failed before; the failure is kept for `end`, never left unhandled. */
  private async write(row: Record<string, unknown>): Promise<void> {
    if (this.failed !== undefined) return;
    await this.writer.write(row).catch((err: unknown) => {
      this.failed = err;
    });
  }

  /** The counts, after every row: a line under the table, or the `summary` line. */
  async end(counts: SyncCounts): Promise<void> {
    await this.chain;
    if (this.failed !== undefined) throw stdoutError(this.failed);
    if (!this.table) {
      await this.writer.write({ type: 'summary', ...counts.plan() });
      return this.writer.end();
    }
    await this.writer.end();
    await writeWithBackpressure(this.output.stdout, `${counts.planLine()}\n`);
  }
}

/** A change as table lines: one per value, the row's line, action and contact on its first. */
function tableRows(entry: PlanChange): Array<Record<string, unknown>> {
  const action = entry.unsure ? `${entry.action}?` : entry.action;
  const changes: Array<Change | undefined> = entry.changes.length > 0 ? entry.changes : [undefined];
  return changes.map((c, i) => ({
    line: i === 0 ? entry.line : '',
    action: i === 0 ? action : '',
    contact: i === 0 ? entry.contact : '',
    field: c?.field ?? `(${entry.unsure ?? 'sent'})`,
    old: c === undefined ? '' : shown(c.old),
    new: c === undefined ? '' : shown(c.new),
  }));
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return '(unset)';
  if (typeof value === 'string') return value;
  return typeof value === 'object' && !isExactNumber(value) ? stringifyJson(value) : String(value);
}
