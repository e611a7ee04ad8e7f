import type { ExportDeps } from './export-deps.js';
import { withExportRun } from './export-run.js';
import { nextPosition, repeatWarnings } from './next-position.js';
import { pageSource, stuckCursor } from './page-source.js';
import { addExtra, type ExportReporter, type ExportSummary } from './run-summary.js';
import type { ExportRunOptions } from './export-run-options.js';
import type { Position } from './export-state.js';

export { MAX_SEEN } from './advance.js';
export { MAX_STUCK_PAGES } from './page-source.js';

/**
 * One export run: pages from the committed position (page-source.ts: fetched ahead, checked by
 * `advance`), each written then committed (commit-log.ts). Into a file: written at the committed
 * offset, fsynced, then cursor and length saved in one atomic state write; so every row lands
 * exactly once across crashes and resumed runs. To stdout: the state advances only after the page
 * was flushed, or (--defer-commit) into a pending position.
 */
export async function runExport(
  deps: ExportDeps,
  opts: ExportRunOptions,
  reporter: ExportReporter,
): Promise<ExportSummary> {
  const checkHeap = deps.holdHeap?.() ?? (() => {});
  return withExportRun(
    deps,
    opts,
    reporter,
    {},
    async ({ plan, summary, log, output, start, crash, signal, pages }) => {
      const label = `export ${opts.kind}${opts.emailType ? ` ${opts.emailType}` : ''}`;
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
        prefetch: () =>
          opts.maxRows === undefined && (opts.maxPages === undefined || summary.pages + 1 < opts.maxPages),
        until: bound,
        stuck: (n) => stuckCursor(undefined, n, 'try again later; if it persists, report it to the API provider'),
      });
      let pos: Position = start;
      for await (const { page, step } of source) {
        const n = summary.pages + 1;
        crash.at('after-fetch', n, true);
        for (const warning of repeatWarnings(label, page, step, n)) deps.notices.warn(warning);

        const out = await output.prepare([{ pieces: page.pieces, size: page.bytes }]);
        deps.signal.throwIfAborted();
        const bytes = await output.write(out, pos, n);
        page.release();

        const changed =
          page.fresh > 0 ||
          page.nextCursor !== pos.cursor ||
          step.seen.length !== pos.seen.length ||
          log.needsFirstSave();
        pos = { ...pos, ...nextPosition(pos, page, step, deps.clock.now()), output: output.record(bytes) };
        summary.rows += page.fresh;
        summary.skipped += page.hits.size + page.repeated;
        addExtra(summary, page.extra);
        summary.pages = n;
        summary.bytes += out.size;
        log.progress(summary, pos.cursor);
        if (changed) await log.commit(pos, n);
        output.committed(bytes);
        reporter.page(summary.rows, n);
        checkHeap();
        if (step.last) {
          summary.status = 'complete';
          summary.moreRemains = false;
          return;
        }
      }
      summary.status = 'stopped';
    },
  );
}
