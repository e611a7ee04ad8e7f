import { csvFormatter } from '../io/csv-line.js';
import { rowCells, type CsvLayout } from './csv-columns.js';
import type { ExportKind, FileFormat } from './state.js';
import type { ExportRow } from '../api/exports.js';

/** How a page of rows becomes bytes. */
export interface PageFormat {
  /** What starts a file (or a stdout stream): BOM and header for CSV, nothing for NDJSON. */
  preamble(): Buffer;
  page(rows: readonly ExportRow[]): Buffer;
}

const BOM = '\uFEFF';

/**
 * NDJSON: one row object per line exactly as the API sent it (members and their order kept),
 * UTF-8, no BOM. CSV: RFC 4180 with CRLF line ends, the given header, an optional BOM.
 */
export async function pageFormat(kind: ExportKind, format: FileFormat, layout: CsvLayout | null, bom: boolean): Promise<PageFormat> {
  if (format === 'ndjson') {
    return {
      preamble: () => Buffer.alloc(0),
      page: (rows) => Buffer.from(rows.map((r) => JSON.stringify(r) + '\n').join(''), 'utf8'),
    };
  }
  if (!layout) throw new Error('a CSV export needs a header');
  const toCsv = await csvFormatter('\r\n');
  const cells = rowCells(kind, layout);
  return {
    preamble: () => Buffer.from((bom ? BOM : '') + toCsv([layout.columns]), 'utf8'),
    page: (rows) => Buffer.from(rows.length ? toCsv(rows.map(cells)) : '', 'utf8'),
  };
}
