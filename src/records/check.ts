import type { FieldDefinition } from '../endpoints/fields.js';
import type { ColumnTarget } from '../batch/columns/field-match.js';
import { DEDUP_KEY, fieldProblem, type PreparedRecord } from './prepare.js';

/** One column of the file against the account's field definitions. */
interface ColumnCheck {
  column: string;
  /**
   * `read-only` and `ignored` columns are not sent; `unknown` ones refuse a real run; `mismatch`:
   * known, with values that do not coerce.
   */
  status: 'ok' | 'unknown' | 'read-only' | 'key' | 'ignored' | 'mismatch';
  dataType: string | null;
  /** Values that do not coerce to the dataType. */
  mismatches: number;
  /** The first mismatch, as `line N: reason`. */
  example: string | null;
}

const MAX_PROBLEMS = 20;

/**
 * Collects, row by row, how a file's columns match the field definitions: unknown columns,
 * read-only fields and values that do not coerce. Nothing is sent. With `resolve` (the run's
 * column resolver), a column is judged by what it resolves to (a label, a --map, a left-out
 * column); without, its name is the field key.
 */
export class CheckCollector {
  private readonly columns = new Map<string, ColumnCheck>();
  /** Field key -> the column that holds it (problems name keys). */
  private readonly byKey = new Map<string, string>();
  private rows = 0;
  private invalid = 0;
  private readonly problems: string[] = [];

  constructor(
    private readonly definitions: ReadonlyMap<string, FieldDefinition>,
    private readonly resolve?: (column: string) => ColumnTarget,
  ) {}

  /** `row`: the row as read (its own column names); `prepared`: what became of it. */
  observe(line: number, row: Record<string, unknown>, prepared: PreparedRecord): void {
    this.rows++;
    const nested =
      row.fields !== null && typeof row.fields === 'object' && !Array.isArray(row.fields)
        ? Object.keys(row.fields)
        : [];
    for (const name of [...Object.keys(row).filter((k) => k !== 'fields' || nested.length === 0), ...nested])
      this.column(name);
    if (prepared.ok) return;
    this.invalid++;
    for (const p of prepared.problems) {
      if (p.kind !== 'type') continue;
      const col = this.column(this.byKey.get(p.field) ?? p.field);
      col.mismatches++;
      col.example ??= `line ${line}: ${p.reason}`;
    }
    if (this.problems.length < MAX_PROBLEMS)
      this.problems.push(`line ${line}: ${prepared.problems.map((p) => p.reason).join('; ')}`);
  }

  report(): {
    ok: boolean;
    rows: number;
    validRows: number;
    invalidRows: number;
    columns: ColumnCheck[];
    /** The first invalid rows, as `line N: reason; reason`. */
    problems: string[];
  } {
    // A known column with values that do not coerce is not "ok" (nor green in the table).
    const columns = [...this.columns.values()].map((c) =>
      c.status === 'ok' && c.mismatches > 0 ? { ...c, status: 'mismatch' as const } : c,
    );
    const ok =
      this.invalid === 0 && columns.every((c) => c.status === 'ok' || c.status === 'key' || c.status === 'ignored');
    return {
      ok,
      rows: this.rows,
      validRows: this.rows - this.invalid,
      invalidRows: this.invalid,
      columns,
      problems: this.problems,
    };
  }

  private column(name: string): ColumnCheck {
    let col = this.columns.get(name);
    if (!col && this.resolve) col = this.resolved(name, this.resolve(name));
    if (!col) {
      // As in prepare.ts: a CSV column may be spelled `fields.<key>`.
      const def = this.definitions.get(name.startsWith('fields.') ? name.slice('fields.'.length) : name);
      const problem = name === DEDUP_KEY ? undefined : fieldProblem(name.replace(/^fields\./, ''), def);
      col = {
        column: name,
        status: name === DEDUP_KEY ? 'key' : problem ? (problem.kind as 'unknown' | 'read-only') : 'ok',
        dataType: def?.dataType ?? null,
        mismatches: 0,
        example: null,
      };
      this.columns.set(name, col);
    }
    return col;
  }

  private resolved(name: string, target: ColumnTarget): ColumnCheck {
    const col = (status: ColumnCheck['status'], dataType: string | null = null): ColumnCheck => ({
      column: name,
      status,
      dataType,
      mismatches: 0,
      example: null,
    });
    let found: ColumnCheck;
    if (target.kind === 'key') found = col(target.key === DEDUP_KEY ? 'key' : 'ok');
    else if (target.kind === 'field' || target.kind === 'nested') {
      const def = this.definitions.get(target.key);
      found = col(def ? 'ok' : 'unknown', def?.dataType ?? null);
      this.byKey.set(target.key, name);
    } else if (target.kind === 'skip')
      found = target.readOnly ? col('read-only', target.readOnly.dataType) : col('ignored');
    else found = col('unknown');
    this.columns.set(name, found);
    return found;
  }
}
