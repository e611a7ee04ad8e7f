import { csvFormatter } from '../output/csv-line.js';
import { parseJson } from '../json/exact-json.js';
import { oneLine } from '../lib/json-scan.js';
import { stringifyJson } from '../lib/exact-number.js';
import { rowWithFieldKeys, type FieldKeys } from './fields-by-key.js';
import { rowCells, type CsvLayout, type ExtraCount } from './csv-layout.js';
import type { FileFormat } from './export-state.js';
import type { ExportKind } from '../endpoints/exports.js';
import type { ExportRow } from '../endpoints/exports.js';

/** How rows become text. */
export interface PageFormat {
  /** What starts a file (or a stdout stream): BOM and header for CSV, nothing for NDJSON. */
  preamble(): Buffer;
  /** One row's line, its line end included; `text`: the row's JSON text as the API sent it, when known. */
  line(row: ExportRow, text?: string): string;
  /** True when this row (and every fresh row after it in its page) is to be held back unformatted (ReceivedPage.held). */
  holds?(row: ExportRow): boolean;
  /** CSV: what the lines made so far put in `_extra` (counted for the summary). */
  readonly extra?: ExtraCount;
}

const BOM = '\uFEFF';

/**
 * NDJSON: one row object per line exactly as the API sent it (members and their order kept),
 * UTF-8, no BOM: the row's own text (not parsed and printed again: its numbers, escapes and
 * members stay as sent, and no row costs a JSON.stringify), on one line. CSV: RFC 4180 with CRLF
 * line ends, the given header, an optional BOM.
 */
export async function pageFormat({
  kind,
  format,
  layout,
  bom = false,
  nullAs = '',
  excelSafe = false,
  fieldKeys,
}: {
  kind: ExportKind;
  format: FileFormat;
  /** The CSV's header (null for NDJSON). */
  layout: CsvLayout | null;
  /** A byte order mark before a CSV's header. */
  bom?: boolean;
  /** --null-as. */
  nullAs?: string;
  /** --excel-safe. */
  excelSafe?: boolean;
  /** --fields-by key (NDJSON): the row's fields renamed by key. */
  fieldKeys?: FieldKeys;
}): Promise<PageFormat> {
  if (format === 'ndjson' && fieldKeys) {
    // --fields-by key: the row is parsed (every digit kept) and written again with `fields` renamed.
    return {
      preamble: () => Buffer.alloc(0),
      line: (row, text) =>
        stringifyJson(
          rowWithFieldKeys((text === undefined ? row : parseJson(text)) as Record<string, unknown>, fieldKeys),
        ) + '\n',
    };
  }
  if (format === 'ndjson') {
    return {
      preamble: () => Buffer.alloc(0),
      line: (row, text) => (text === undefined ? JSON.stringify(row) : oneLine(text)) + '\n',
    };
  }
  if (!layout) throw new Error('a CSV export needs a header');
  // --null-as: null cells hold the marker; a text equal to it is quoted (texts: its cells in the row at hand).
  const texts = nullAs === '' ? undefined : new Set<number>();
  const toCsv = await csvFormatter('\r\n', texts && (() => (texts.size > 0 ? texts : undefined)));
  const extra: ExtraCount = { values: 0, rows: 0, members: new Set() };
  const exact = rowCells(kind, layout, { nullAs, texts, exact: (text) => parseJson(text) as ExportRow, count: extra });
  const cells = excelSafe ? (row: ExportRow, text?: string) => exact(row, text).map(excelSafeCell) : exact;
  const header = excelSafe ? layout.columns.map(excelSafeCell) : layout.columns;
  const toHeader = await csvFormatter('\r\n');
  return {
    preamble: () => Buffer.from((bom ? BOM : '') + toHeader([header]), 'utf8'),
    line: (row, text) => toCsv([cells(row, text)]),
    extra,
  };
}

/**
 * --excel-safe: a cell a spreadsheet would read as a formula (it starts with =, +, -, @, tab or
 * CR) gets a leading `'`, as OWASP recommends against CSV injection. Off by default: exports
 * are data, and the value is then no longer exact.
 */
export function excelSafeCell(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

const BLOCK_BYTES = 256 * 1024;
const POOLED_BLOCKS = 32;

/**
 * Output blocks reused from page to page. A page's bytes outlive a few young-generation
 * collections while the page streams in, so fresh Buffers got promoted and, once written, waited
 * as garbage for a full collection: ~25 MB of dead pages on a long export. Reused, they do not.
 */
export class BlockPool {
  private readonly free: Buffer[] = [];

  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafe(BLOCK_BYTES);
  }

  give(blocks: readonly Buffer[]): void {
    for (const block of blocks)
      if (block.length === BLOCK_BYTES && this.free.length < POOLED_BLOCKS) this.free.push(block);
  }
}

/** Text gathered before it is encoded: one `Buffer.write` per ~16,000 characters, not per row. */
const PENDING_CHARS = 16 * 1024;

/** A page's output as it is made: lines in, UTF-8 bytes out, in blocks from the pool. */
export class PageBytes {
  private readonly blocks: Buffer[] = [];
  private readonly pieces: Buffer[] = [];
  private block: Buffer | undefined;
  private at = 0;
  private size = 0;
  private pending = '';

  constructor(private readonly pool: BlockPool = new BlockPool()) {}

  add(text: string): void {
    this.pending += text;
    if (this.pending.length >= PENDING_CHARS) this.encode();
  }

  /** The pieces, in order, their total length, and how to hand the blocks back once written. */
  done(): { pieces: Buffer[]; bytes: number; release: () => void } {
    this.encode();
    this.close();
    return { pieces: this.pieces, bytes: this.size, release: () => this.pool.give(this.blocks) };
  }

  private encode(): void {
    const text = this.pending;
    if (text === '') return;
    this.pending = '';
    // A UTF-16 unit is at most 3 bytes of UTF-8: room for that, and nothing is cut.
    const most = text.length * 3;
    if (most > BLOCK_BYTES) {
      this.close();
      const piece = Buffer.from(text, 'utf8');
      this.pieces.push(piece);
      this.size += piece.length;
      return;
    }
    if (!this.block || this.block.length - this.at < most) {
      this.close();
      this.block = this.pool.take();
      this.blocks.push(this.block);
    }
    this.at += this.block.write(text, this.at);
  }

  private close(): void {
    if (this.block && this.at > 0) {
      this.pieces.push(this.block.subarray(0, this.at));
      this.size += this.at;
    }
    this.block = undefined;
    this.at = 0;
  }
}
