import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { createListWriter } from '../output/list-writer.js';
import type { CommandResult } from '../output/render.js';
import { summaryJsonTarget, writeSummaryJson } from '../output/summary-json.js';
import { switchFlag, textFlag, withBrief } from './flags.js';
import { outputOf } from './context-deps.js';

/** --all (and its gh-style name --paginate) and --summary-json of a list command. */
export const PAGING_FLAGS = {
  all: switchFlag('--all', 'walk every page, printing rows as they come'),
  paginate: withBrief(
    switchFlag('--paginate', 'the same as --all (the name `cnv api` and `gh api` use)'),
    'the same as --all',
  ),
  summaryJson: withBrief(
    textFlag(
      '--summary-json <file>',
      'write {rows, pages, nextCursor, status} to this file at the end (also when the run fails): ' +
        'the cursor to continue from, for a script that pages by itself',
    ),
    'write {rows, pages, nextCursor, status} to it',
  ),
};

interface PagingOptions {
  all?: boolean;
  paginate?: boolean;
  summaryJson?: string;
}

/** The paging flags' rule: stdout carries the rows, so the summary goes to a file, in a directory that exists. */
export function checkPaging(opts: Pick<PagingOptions, 'summaryJson'>): void {
  if (opts.summaryJson === '-')
    throw new UsageError(
      '--summary-json -: stdout carries the rows',
      'give --summary-json a file name',
      'conflicting_options',
    );
  summaryJsonTarget(opts.summaryJson, true);
}

interface PagedList {
  label: string;
  cursor?: string;
  fetch(cursor: string | undefined): Promise<{
    rows: Array<Record<string, unknown>>;
    nextCursor: string | null;
  }>;
  columns: string[];
  tableColumns: string[];
  chosen: boolean;
}

/**
 * A list command's pages: one page (the next page's cursor on stderr once the rows are printed),
 * or every page with --all/--paginate, streamed. With --summary-json the cursor to continue from
 * is in a file a script reads, whatever the end (a run that failed names the page it failed on).
 */
export async function listPages(ctx: Context, opts: PagingOptions, list: PagedList): Promise<CommandResult> {
  // (Checked before the run: checkPaging.)
  const summaryJson = opts.summaryJson;
  const figures = { rows: 0, pages: 0, nextCursor: list.cursor ?? null };
  const summarise = (status: string) => {
    if (summaryJson)
      writeSummaryJson({ stdout: ctx.io.stdout, redact: (text) => ctx.redact(text) }, summaryJson, {
        command: list.label,
        status,
        ...figures,
        moreRemains: figures.nextCursor !== null,
      });
  };
  try {
    if (!(opts.all || opts.paginate)) {
      const page = await list.fetch(list.cursor);
      Object.assign(figures, { rows: page.rows.length, pages: 1, nextCursor: page.nextCursor });
      summarise('complete');
      const more = page.nextCursor ? `next page: --cursor ${page.nextCursor} (or --all for every page)` : undefined;
      return {
        kind: 'list',
        rows: page.rows,
        columns: list.columns,
        tableColumns: list.tableColumns,
        chosen: list.chosen,
        ...(more ? { trailer: more } : {}),
      };
    }
    const writer = await createListWriter(
      outputOf(ctx),
      list.columns,
      { table: list.tableColumns, chosen: list.chosen },
      (m) => ctx.warn(m),
    );
    do {
      const page = await list.fetch(figures.nextCursor ?? undefined);
      for (const row of page.rows) await writer.write(row);
      figures.rows += page.rows.length;
      figures.pages++;
      figures.nextCursor = page.nextCursor;
    } while (figures.nextCursor);
    await writer.end();
    summarise('complete');
    return { kind: 'none' };
  } catch (err) {
    try {
      summarise(ctx.signal.aborted ? 'interrupted' : 'failed');
    } catch (failed) {
      // The run's own error is the one to report; the summary file's is a warning.
      ctx.warn(`could not write the summary to ${summaryJson}: ${(failed as Error).message}`);
    }
    throw err;
  }
}
