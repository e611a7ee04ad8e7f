import type { Step } from './advance.js';
import type { ReceivedPage } from './page-receiver.js';
import type { LanePosition } from './export-state.js';

/**
 * Where one cursor stands once a page from it is committed (a whole export's position, or one
 * type's lane of a multi-type export): the cursor moves only when the page moved it, and says
 * when; `seen` is the step's; rows and pages count the page. Pure: the caller commits it.
 */
export function nextPosition(
  from: LanePosition,
  page: Pick<ReceivedPage, 'nextCursor' | 'fresh'>,
  step: Pick<Step, 'moved' | 'seen'>,
  nowMs: number,
): LanePosition {
  return {
    cursor: step.moved ? page.nextCursor : from.cursor,
    cursorAt: step.moved ? new Date(nowMs).toISOString() : from.cursorAt,
    seen: step.seen,
    rows: from.rows + page.fresh,
    pages: from.pages + 1,
  };
}

/**
 * What a page the server repeated itself in is worth a warning for: rows sent twice within it,
 * rows its page before delivered already (each written once either way). `n`: the page's
 * number in a one-cursor run; a lane's pages go unnumbered (they interleave with other types').
 */
export function repeatWarnings(
  label: string,
  page: Pick<ReceivedPage, 'repeated'>,
  step: Pick<Step, 'again'>,
  n?: number,
): string[] {
  const warnings: string[] = [];
  if (page.repeated > 0)
    warnings.push(
      `${label}: the server sent ${page.repeated} rows of ${n === undefined ? 'a page' : `page ${n}`} twice within the page; ` +
        'each was written once',
    );
  if (step.again.length > 0) {
    const where =
      n === undefined ? 'that its page before delivered already' : `on page ${n} that page ${n - 1} delivered already`;
    warnings.push(`${label}: the server sent ${step.again.length} rows ${where}; each was written once`);
  }
  return warnings;
}
