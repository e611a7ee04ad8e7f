import type { Notices } from '../output/notices.js';
import { safeText } from '../input/input-rows.js';
import type { BatchCounts } from './summary.js';
import type { PreparedRow, RowResult } from './types.js';

/** How many failed or invalid rows are listed on stderr without a report. */
export const MAX_LISTED_PROBLEMS = 20;

/** Rows whose report line carries a note (identified by another column): counted, the first shown, at the end. */
export class Notes {
  private count = 0;
  private first: string | undefined;

  see<P>(row: PreparedRow<P>): PreparedRow<P> {
    if (row.outcome === undefined && row.note !== undefined) {
      this.count++;
      this.first ??= row.note;
    }
    return row;
  }

  show(notices: Notices): void {
    if (this.first === undefined) return;
    const rows = this.count === 1 ? '1 row' : `${this.count} rows`;
    const alike = this.count > 1 ? " (or alike; each row's report message says)" : '';
    notices.info(`note: ${rows}: ${this.first}${alike}`);
  }
}

export function listProblems(notices: Notices, problems: RowResult[], counts: BatchCounts): void {
  for (const p of problems.slice(0, MAX_LISTED_PROBLEMS)) {
    // Identifiers and messages may hold the file's text: escaped here (the report keeps them exact).
    const identifier = p.identifier ? ` (${safeText(p.identifier)})` : '';
    notices.info(
      `line ${p.line}: ${p.status}: ${safeText(p.error ?? '')}: ${safeText(p.message ?? '', 300)}${identifier}`,
    );
  }
  const more = counts.count('failed') + counts.count('invalid') - MAX_LISTED_PROBLEMS;
  if (more > 0) notices.info(`... and ${more} more; --report FILE lists every row`);
}
