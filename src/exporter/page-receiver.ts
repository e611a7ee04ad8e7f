import type { ExportRow, PageReceiver } from '../endpoints/exports.js';
import { ResponseShapeError } from '../errors.js';
import { hasRow, identityText, IdTable, type Ids, type RowKey } from './id-table.js';
import { rowKey, versionOf } from './kinds.js';
import { BlockPool, PageBytes, type PageFormat } from './page-format.js';
import type { ExportKind } from '../endpoints/exports.js';

/** A page as received: its output bytes, and what deduplication found. */
export interface ReceivedPage {
  pieces: Buffer[];
  bytes: number;
  /** Rows the server sent, delivered before or not. */
  rows: number;
  /** Rows written (not delivered before). */
  fresh: number;
  /** Rows the server sent twice within this page (written once). */
  repeated: number;
  /** Identities of the rows written, in order (kept as bytes, not strings: see IdTable). */
  freshIds: IdTable;
  hits: Set<string>;
  nextCursor: string | null;
  /**
   * Fresh rows held back unformatted (the format's `holds`): from the first row it held, every
   * fresh row after it too, in order. Absent when none was.
   */
  held?: Array<{ row: ExportRow; text: string }>;
  /** CSV: what this page's lines put in `_extra` (values, rows) and the names the run's lines used so far. */
  extra?: { values: number; rows: number; members: string[] };
  /** Hands the page's memory back for later pages: call once it is written and its ids read. */
  release(): void;
}

/**
 * Drops the rows of `skip` and the repeats within the page, and formats the others as they
 * stream in: no page is held parsed. A page with more rows than `limit` breaks the contract
 * (the API clamps the page size): it stops the run before anything of it is written.
 */
export function receiver(
  kind: ExportKind,
  format: PageFormat,
  skip: Ids,
  pool: BlockPool,
  limit: number,
  label: string,
): () => PageReceiver<ReceivedPage> {
  return () => {
    const out = new PageBytes(pool);
    const hits = new Set<string>();
    const inPage = new IdTable(limit);
    let rows = 0;
    let fresh = 0;
    let repeated = 0;
    let held: ReceivedPage['held'];
    // Identities of a state saved before content hashes (contacts only; usually none).
    const legacy = kind === 'contacts' ? skip.legacy : undefined;
    const key: RowKey = { head: '', tail: undefined, a: 0, b: 0, hash: 0 };
    // Pages are received one after another: what the format counts meanwhile is this page's.
    const extra0 = format.extra && { values: format.extra.values, rows: format.extra.rows };
    return {
      row(row, text) {
        rows++;
        if (rows > limit) {
          throw new ResponseShapeError(
            `${label}: the server sent more than the ${limit} rows asked for in one page (off-contract); stopped before writing that page`,
          );
        }
        rowKey(kind, row, text, key);
        if (skip.size > 0 && hasRow(skip, key)) hits.add(identityText(key));
        else if (legacy?.has(versionOf(row))) hits.add(versionOf(row));
        else if (!inPage.addKey(key)) repeated++;
        else {
          fresh++;
          if (held || format.holds?.(row)) (held ??= []).push({ row, text });
          else out.add(format.line(row, text));
        }
      },
      end: (nextCursor) => {
        const written = out.done();
        return {
          pieces: written.pieces,
          bytes: written.bytes,
          rows,
          fresh,
          repeated,
          hits,
          nextCursor,
          freshIds: inPage,
          release: written.release,
          held,
          ...(format.extra && extra0
            ? {
                extra: {
                  values: format.extra.values - extra0.values,
                  rows: format.extra.rows - extra0.rows,
                  members: [...format.extra.members],
                },
              }
            : {}),
        };
      },
    };
  };
}
