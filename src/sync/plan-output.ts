import { stdoutError } from '../errors.js';
import { resolveFormat, type Output } from '../output/format.js';
import { createListWriter } from '../output/list-writer.js';
import { tableText, writePaged } from '../output/pager.js';
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
  /** On a terminal: the changes, laid out at the end (full or compact, by their number). */
  private readonly entries: Array<PlanChange & { shown: string }> = [];

  private constructor(
    private readonly output: Output,
    private readonly table: boolean,
    private readonly form: PlanForm | undefined,
    private readonly writer: Awaited<ReturnType<typeof createListWriter>> | undefined,
  ) {}

  static async open(output: Output, form?: PlanForm): Promise<PlanOutput> {
    const table = resolveFormat(output) === 'table';
    // Piped, or with --json: NDJSON, so a plan of any size streams (-o json would hold it whole).
    return new PlanOutput(
      output,
      table,
      form,
      table ? undefined : await createListWriter({ ...output, format: 'ndjson' }),
    );
  }

  /** A row that would be sent; `shown` names its contact in the table (its email when it has one). */
  add(line: number, contact: string, decision: Decision, shown = contact): void {
    if (decision.action === 'unchanged') return;
    const entry: PlanChange = {
      type: 'change',
      line,
      action: decision.action,
      contact,
      cnvContactId: decision.cnvContactId ?? null,
      changes: decision.changes,
      unsure: decision.unsure?.detail ?? null,
    };
    if (this.table) this.entries.push({ ...entry, shown });
    else this.chain = this.chain.then(() => this.write(entry as unknown as Record<string, unknown>));
  }

  /** One row, unless a write failed before; the failure is kept for `end`, never left unhandled. */
  private async write(row: Record<string, unknown>): Promise<void> {
    if (this.failed !== undefined) return;
    await this.writer!.write(row).catch((err: unknown) => {
      this.failed = err;
    });
  }

  /** The counts, after every row: a line under the table, or the `summary` line. */
  async end(counts: SyncCounts): Promise<void> {
    await this.chain;
    if (this.failed !== undefined) throw stdoutError(this.failed);
    if (!this.table) {
      await this.writer!.write({ type: 'summary', ...counts.plan() });
      return this.writer!.end();
    }
    const compact = this.form === 'compact' || (this.form === undefined && this.entries.length > PLAN_COMPACT_AFTER);
    const columns = compact
      ? ['line', 'action', 'contact', 'changes']
      : ['line', 'action', 'contact', 'field', 'old', 'new'];
    const rows = this.entries.flatMap((e) => (compact ? [compactRow(e)] : tableRows(e)));
    // The counts first (a long table's first screen in the pager says what it holds); no changes: the counts alone.
    const text = rows.length === 0 ? '' : `\n${await tableText(this.output, columns, rows)}`;
    await writePaged(this.output, `${counts.planLine()}\n${text}`);
  }
}

/** How the plan's table is laid out on a terminal (--plan-format). */
type PlanForm = 'full' | 'compact';

/** Past this many contacts, the plan's table is compact (one line per contact) unless --plan-format full. */
export const PLAN_COMPACT_AFTER = 20;

/** A compact line shows this many of a row's changes, old -> new, then how many more. */
const COMPACT_CHANGES = 3;
/** A value in a compact line is cut past this many characters (so the next changes show too). */
const COMPACT_VALUE = 24;

/** A change as one compact line: its first changes, old -> new (`fields.city: London -> Paris; email: ...`). */
function compactRow(entry: PlanChange & { shown: string }): Record<string, unknown> {
  const value = (v: unknown) => {
    const text = shown(v);
    return text.length > COMPACT_VALUE ? `${text.slice(0, COMPACT_VALUE - 1)}…` : text;
  };
  const first = entry.changes.slice(0, COMPACT_CHANGES).map((c) => `${c.field}: ${value(c.old)} -> ${value(c.new)}`);
  const more = entry.changes.length - first.length;
  const fields = `${first.join('; ')}${more > 0 ? ` (+${more} more)` : ''}`;
  return {
    line: entry.line,
    action: entry.unsure ? `${entry.action}?` : entry.action,
    contact: entry.shown,
    changes: fields || `(${entry.unsure ?? 'sent'})`,
  };
}

/** A change as table lines: one per value, the row's line, action and contact on its first. */
function tableRows(entry: PlanChange & { shown: string }): Array<Record<string, unknown>> {
  const action = entry.unsure ? `${entry.action}?` : entry.action;
  const changes: Array<Change | undefined> = entry.changes.length > 0 ? entry.changes : [undefined];
  return changes.map((c, i) => ({
    line: i === 0 ? entry.line : '',
    action: i === 0 ? action : '',
    contact: i === 0 ? entry.shown : '',
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
