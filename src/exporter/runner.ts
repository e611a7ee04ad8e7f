import type { ExportDeps } from './export-deps.js';
import { withExportRun } from './export-run.js';
import { pageSource, stuckCursor } from './page-source.js';
import type { ExportReporter, ExportSummary } from './run-summary.js';
import type { ExportRunOptions } from './export-run-options.js';

export { MAX_SEEN } from './advance.js';
export { MAX_STUCK_PAGES } from './page-source.js';

/**
 * One export run: pages from the committed position (page-source.ts: fetched ahead, checked by
 * `advance`; contacts read again when the field labels changed meanwhile: field-watch.ts), each
 * appended durably (`ExportRun.append`: written, then committed). Into a file:
 * written at the committed offset, fsynced, then cursor and length saved in one atomic state
 * write; so every row lands exactly once across crashes and resumed runs. To stdout: the state
 * advances only after the page was flushed, or (--defer-commit) into a pending position.
 */
export async function runExport(
  deps: ExportDeps,
  opts: ExportRunOptions,
  reporter: ExportReporter,
): Promise<ExportSummary> {
  const checkHeap = deps.holdHeap?.() ?? (() => {});
  return withExportRun(deps, opts, reporter, {}, async (run) => {
    const { plan, summary, start, label, signal, pages, append } = run;
    const bound = () =>
      (opts.maxPages !== undefined && summary.pages >= opts.maxPages) ||
      (opts.maxRows !== undefined && summary.rows >= opts.maxRows);
    const source = pageSource({
      fetch: pages(plan.target, label),
      start,
      label,
      signal,
      limit: () => (opts.maxRows !== undefined ? Math.min(opts.limit, opts.maxRows - summary.rows) : opts.limit),
      // Not when a bound may stop the run after this page.
      prefetch: () => opts.maxRows === undefined && (opts.maxPages === undefined || summary.pages + 1 < opts.maxPages),
      until: bound,
      stuck: (n) => stuckCursor(undefined, n, 'try again later; if it persists, report it to the API provider'),
      trust: run.trust,
    });
    for await (const { page, step } of source) {
      await append(page, step);
      checkHeap();
      if (step.last) {
        summary.status = 'complete';
        summary.moreRemains = false;
        return;
      }
    }
    summary.status = 'stopped';
  });
}
