import type { Context } from '../context.js';
import { withExportRun } from './export-run.js';
import { holdHeapSize } from './heap-size.js';
import { pageSource, stuckCursor } from './page-source.js';
import type { ExportRunOptions } from './plan.js';
import type { ExportReporter, ExportSummary } from './report.js';
import type { Position } from './state.js';

export { MAX_SEEN } from './advance.js';
export { MAX_STUCK_PAGES } from './page-source.js';

/**
 * One export run: pages from the committed position (page-source.ts: fetched ahead, checked by
 * `advance`), each written then committed (commit-log.ts). Into a file: written at the committed
 * offset, fsynced, then cursor and length saved in one atomic state write; so every row lands
 * exactly once across crashes and resumed runs. To stdout: the state advances only after the page
 * was flushed, or (--defer-commit) into a pending position.
 */
export async function runExport(ctx: Context, opts: ExportRunOptions, reporter: ExportReporter): Promise<ExportSummary> {
  const checkHeap = holdHeapSize(ctx.env);
  return withExportRun(ctx, opts, reporter, {}, async ({ plan, summary, log, output, start, crash, signal, pages }) => {
    const label = `export ${opts.kind}${opts.emailType ? ` ${opts.emailType}` : ''}`;
    const bound = () => (opts.maxPages !== undefined && summary.pages >= opts.maxPages) || (opts.maxRows !== undefined && summary.rows >= opts.maxRows);
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
    });
    let pos: Position = start;
    for await (const { page, step } of source) {
      const n = summary.pages + 1;
      crash.at('after-fetch', n, true);
      if (page.repeated > 0) ctx.warn(`${label}: the server sent ${page.repeated} rows of page ${n} twice within the page; each was written once`);
      if (step.again.length > 0) ctx.warn(`${label}: the server sent ${step.again.length} rows on page ${n} that page ${n - 1} delivered already; each was written once`);

      const out = await output.prepare([{ pieces: page.pieces, size: page.bytes }]);
      ctx.signal.throwIfAborted();
      const bytes = await output.write(out, pos, n);
      page.release();

      const changed = page.fresh > 0 || page.nextCursor !== pos.cursor || step.seen.length !== pos.seen.length || log.needsFirstSave();
      pos = {
        ...pos,
        cursor: step.moved ? page.nextCursor : pos.cursor,
        cursorAt: step.moved ? new Date(ctx.clock.now()).toISOString() : pos.cursorAt,
        seen: step.seen,
        output: output.record(bytes),
        rows: pos.rows + page.fresh,
        pages: pos.pages + 1,
      };
      summary.rows += page.fresh;
      summary.skipped += page.hits.size + page.repeated;
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
  });
}
